#!/usr/bin/env python3
"""Slow HTTP clients for tests/exporter/web.sh, loopback only.

Opens ADDRS x PER connections to 127.0.0.1:PORT, from the source
addresses 127.0.0.2, 127.0.0.3, ... (PER from each), sends the first line
of a request and then one header byte every INTERVAL seconds (an idle
timeout never fires), for at most DURATION seconds in all. Prints one
JSON line once all are connected, then one JSON object: how many were opened, how many the server closed and when
(seconds after connect; before EARLY seconds: refused at accept), and how many were still open at the end.
"""
import json
import selectors
import socket
import sys
import time


def main():
    port, addrs, per = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    interval, duration = float(sys.argv[4]), float(sys.argv[5])
    early = float(sys.argv[6])  # closed before: refused, not cut at a deadline
    if addrs < 1 or addrs > 250:
        sys.exit("addrs: 1 to 250")
    sel = selectors.DefaultSelector()
    conns = {}
    start = time.monotonic()
    pending = {}
    wsel = selectors.DefaultSelector()
    for a in range(addrs):
        for _ in range(per):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((f"127.0.0.{a + 2}", 0))
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            # from before the handshake: never later than the server's accept
            pending[s] = time.monotonic()
            wsel.register(s, selectors.EVENT_WRITE)
    while pending and time.monotonic() - start < duration:
        for key, _ in wsel.select(timeout=0.05):
            s = key.fileobj
            wsel.unregister(s)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                sys.exit("a connection failed")
            s.send(b"GET /metrics HTTP/1.1\r\nHost: t\r\n")
            conns[s] = pending.pop(s)
            sel.register(s, selectors.EVENT_READ)
    if pending:
        sys.exit("connections not established in time")
    print(json.dumps({"connected": len(conns),
                      "connect_s": round(time.monotonic() - start, 3)}), flush=True)
    opened = len(conns)
    closed = []          # seconds after connect, as the server closed each
    header = b"X-Slow: " + b"a" * 4096
    pos = 0
    next_byte = time.monotonic() + interval
    while conns and time.monotonic() - start < duration:
        for key, _ in sel.select(timeout=0.05):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:  # the server closed it (a response would be data)
                closed.append(time.monotonic() - conns.pop(s))
                sel.unregister(s)
                s.close()
        if time.monotonic() >= next_byte:
            for s in list(conns):
                try:
                    s.send(header[pos % len(header):pos % len(header) + 1])
                except OSError:
                    pass  # seen as closed by the read above
            pos += 1
            next_byte += interval
    still = len(conns)
    for s in conns:
        s.close()
    print(json.dumps({
        "opened": opened,
        "closed_by_server": len(closed),
        "closed_early": sum(1 for t in closed if t < early),
        "closed_late": sum(1 for t in closed if t >= early),
        "latest_close_s": round(max(closed), 3) if closed else None,
        "earliest_late_close_s": round(min((t for t in closed if t >= early),
                                           default=0), 3),
        "still_open": still,
        "early_times": sorted(round(t, 2) for t in closed if t < early)[:20],
    }))


if __name__ == "__main__":
    main()
