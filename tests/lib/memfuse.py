#!/usr/bin/env python3
"""A FUSE server in memory, one regular file, speaking /dev/fuse directly.

Usage: memfuse.py MOUNTPOINT --size BYTES --blksize N --log FILE [--no-writeback-cache]

Mounts a FUSE filesystem on MOUNTPOINT holding one file, "f", of BYTES
zero bytes, whose attributes give st_blksize N (the block size FUSE's
page cache tracks). With the writeback cache (the default, FUSE_WRITEBACK_CACHE
at INIT) the kernel buffers writes in its page cache and writes them back
later, through iomap since 6.17. Every WRITE request the server receives
is logged to FILE as a JSON line {"offset": O, "size": S}: what writeback
sent, the ground truth a test checks a tool's figures against (FUSE has
no block device). Prints "ready" on stdout once mounted; serves until
unmounted (DESTROY, or the device closed).

No libfuse: the protocol is read and written with struct (include/uapi/
linux/fuse.h, protocol 7.31 as announced at INIT).
"""
import argparse
import json
import os
import stat
import struct
import subprocess
import sys

# opcodes (include/uapi/linux/fuse.h)
LOOKUP, FORGET, GETATTR, SETATTR = 1, 2, 3, 4
OPEN, READ, WRITE, STATFS, RELEASE, FSYNC = 14, 15, 16, 17, 18, 20
GETXATTR, LISTXATTR, FLUSH, INIT = 22, 23, 25, 26
OPENDIR, READDIR, RELEASEDIR, FSYNCDIR, ACCESS = 27, 28, 29, 30, 34
INTERRUPT, DESTROY, BATCH_FORGET, LSEEK = 36, 38, 42, 46

FUSE_ASYNC_READ = 1 << 0
FUSE_BIG_WRITES = 1 << 5
FUSE_WRITEBACK_CACHE = 1 << 16
FATTR_SIZE = 1 << 3

IN_HEADER = struct.Struct("<IIQQIIIHH")          # 40 bytes
OUT_HEADER = struct.Struct("<IiQ")               # 16 bytes
ATTR = struct.Struct("<QQQQQQIIIIIIIIII")        # fuse_attr, 88 bytes
IO_IN = struct.Struct("<QQIIQII")                # fuse_read_in / fuse_write_in, 40
SETATTR_IN = struct.Struct("<IIQQQQQQIIIIIIII")  # 88

ROOT, FILE = 1, 2
NAME = b"f"


class Server:
    def __init__(self, fd, size, blksize, log, writeback_cache):
        self.fd = fd
        self.data = bytearray(size)
        self.blksize = blksize
        self.log = log
        self.writeback_cache = writeback_cache

    def attr(self, node):
        if node == ROOT:
            mode, size, nlink = stat.S_IFDIR | 0o755, 0, 2
        else:
            mode, size, nlink = stat.S_IFREG | 0o644, len(self.data), 1
        return ATTR.pack(node, size, (size + 511) // 512, 0, 0, 0, 0, 0, 0,
                         mode, nlink, 0, 0, 0, self.blksize, 0)

    def reply(self, unique, payload=b"", error=0):
        os.write(self.fd, OUT_HEADER.pack(OUT_HEADER.size + len(payload), error, unique)
                 + payload)

    def entry(self, node):
        # nodeid, generation, entry_valid, attr_valid (s), their ns, attr
        return struct.pack("<QQQQII", node, 0, 3600, 3600, 0, 0) + self.attr(node)

    def attr_out(self, node):
        return struct.pack("<QII", 3600, 0, 0) + self.attr(node)

    def handle(self, op, unique, node, body):
        if op == INIT:
            major, minor, readahead, flags = struct.unpack_from("<IIII", body)
            want = FUSE_ASYNC_READ | FUSE_BIG_WRITES
            if self.writeback_cache:
                want |= FUSE_WRITEBACK_CACHE
            out = struct.pack("<IIIIHHIIHHII", 7, 31, readahead, flags & want, 16, 12,
                              1 << 20, 1, 256, 0, 0, 0)
            self.reply(unique, out + bytes(64 - len(out)))
        elif op == LOOKUP:
            if node == ROOT and body.rstrip(b"\0") == NAME:
                self.reply(unique, self.entry(FILE))
            else:
                self.reply(unique, error=-2)
        elif op == GETATTR:
            self.reply(unique, self.attr_out(node))
        elif op == SETATTR:
            valid = SETATTR_IN.unpack_from(body)[0]
            if valid & FATTR_SIZE and node == FILE:
                size = SETATTR_IN.unpack_from(body)[3]
                if size < len(self.data):
                    del self.data[size:]
                else:
                    self.data.extend(bytes(size - len(self.data)))
            self.reply(unique, self.attr_out(node))
        elif op in (OPEN, OPENDIR):
            self.reply(unique, struct.pack("<QIi", 0, 0, 0))
        elif op == READ:
            _, off, size = IO_IN.unpack_from(body)[:3]
            self.reply(unique, bytes(self.data[off:off + size]))
        elif op == WRITE:
            _, off, size = IO_IN.unpack_from(body)[:3]
            payload = body[IO_IN.size:IO_IN.size + size]
            end = off + len(payload)
            if end > len(self.data):
                self.data.extend(bytes(end - len(self.data)))
            self.data[off:end] = payload
            self.log.write(json.dumps({"offset": off, "size": len(payload)}) + "\n")
            self.log.flush()
            self.reply(unique, struct.pack("<II", len(payload), 0))
        elif op == READDIR:
            self.reply(unique)      # an empty listing: the tests name the file
        elif op == STATFS:
            self.reply(unique, struct.pack("<QQQQQIIII", 1 << 20, 1 << 19, 1 << 19, 16, 15,
                                           self.blksize, 255, self.blksize, 0) + bytes(24))
        elif op in (RELEASE, RELEASEDIR, FSYNC, FSYNCDIR, FLUSH, ACCESS):
            self.reply(unique)
        elif op in (FORGET, BATCH_FORGET, INTERRUPT):
            pass                    # no reply
        elif op == DESTROY:
            self.reply(unique)
            return False
        else:
            self.reply(unique, error=-38)   # ENOSYS: the kernel stops asking
        return True

    def serve(self):
        while True:
            try:
                buf = os.read(self.fd, (1 << 20) + 4096)
            except OSError as e:
                if e.errno == 19:   # ENODEV: unmounted
                    return
                if e.errno == 4:
                    continue
                raise
            if not buf:
                return
            _, op, unique, node = IN_HEADER.unpack_from(buf)[:4]
            if not self.handle(op, unique, node, buf[IN_HEADER.size:]):
                return


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mountpoint")
    p.add_argument("--size", type=int, default=1 << 20)
    p.add_argument("--blksize", type=int, default=4096)
    p.add_argument("--log", required=True)
    p.add_argument("--no-writeback-cache", action="store_true")
    a = p.parse_args()
    fd = os.open("/dev/fuse", os.O_RDWR | os.O_CLOEXEC)
    os.set_inheritable(fd, True)
    opts = f"fd={fd},rootmode=40000,user_id=0,group_id=0,allow_other"
    subprocess.run(["mount", "-t", "fuse.memfuse", "-o", opts, "memfuse", a.mountpoint],
                   check=True, pass_fds=(fd,))
    os.set_inheritable(fd, False)
    with open(a.log, "w") as log:
        print("ready", flush=True)
        Server(fd, a.size, a.blksize, log, not a.no_writeback_cache).serve()


if __name__ == "__main__":
    sys.exit(main())
