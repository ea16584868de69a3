#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Reads what compare and report produce, independently of iomapdirty's
code, and prints it as JSON for the shell tests to check with jq.

  outcheck.py mdtable < TEXT    the first markdown pipe table: header and
                                rows (cells unescaped); exit 1 if the lines
                                starting with '|' are not a valid table
  outcheck.py html FILE         a page (e.g. chromium --dump-dom): every
                                table with an id (rows of cell texts), every
                                SVG rect with data-count (its count, height),
                                the element names used, and the page's text
  outcheck.py png FILE          a screenshot: size, distinct colours, share
                                of pixels that are not the background
Standard library only (Debian's python3).
"""
import json
import re
import struct
import sys
import zlib
from html.parser import HTMLParser


def split_row(line):
    """Cells of a pipe-table row; '\\|' is a pipe inside a cell."""
    line = line.strip()
    if not (line.startswith('|') and line.endswith('|') and len(line) > 1):
        return None
    cells, cur, i = [], '', 1
    while i < len(line) - 1:
        c = line[i]
        if c == '\\' and i + 1 < len(line) - 1:
            cur += line[i + 1]      # the escaped character itself
            i += 2
            continue
        if c == '|':
            cells.append(cur.strip())
            cur = ''
        else:
            cur += c
        i += 1
    cells.append(cur.strip())
    return cells


def mdtable(text):
    lines = [l for l in text.splitlines() if l.startswith('|')]
    if len(lines) < 3:
        sys.exit('mdtable: fewer than 3 table lines')
    header, sep = split_row(lines[0]), split_row(lines[1])
    if not header or not sep or len(sep) != len(header):
        sys.exit('mdtable: header and separator differ in cells')
    if not all(re.fullmatch(r':?-{3,}:?', c) for c in sep):
        sys.exit('mdtable: bad separator row: %r' % lines[1])
    rows = []
    for l in lines[2:]:
        r = split_row(l)
        if r is None or len(r) != len(header):
            sys.exit('mdtable: row with %s cells, header has %d: %r' %
                     (len(r) if r else 'no', len(header), l))
        rows.append(r)
    json.dump({'header': header, 'rows': rows}, sys.stdout)


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.rects, self.tags, self.text = {}, [], set(), []
        self.table, self.row, self.cell = None, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == 'table' and a.get('id'):
            self.table = self.tables.setdefault(a['id'], [])
        elif tag == 'tr' and self.table is not None:
            self.row = []
            self.table.append(self.row)
        elif tag in ('td', 'th') and self.row is not None:
            self.cell = ''
        elif tag == 'rect' and 'data-count' in a:
            self.rects.append({'count': int(a['data-count']),
                               'height': float(a.get('height', 0)),
                               'hist': a.get('data-hist'),
                               'run': a.get('data-run')})

    def handle_endtag(self, tag):
        if tag in ('td', 'th') and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == 'tr':
            self.row = None
        elif tag == 'table':
            self.table = None

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell += data


def html(path):
    p = Page()
    with open(path, encoding='utf-8') as f:
        p.feed(f.read())
    json.dump({'tables': p.tables, 'rects': p.rects, 'tags': sorted(p.tags),
               'text': ' '.join(' '.join(p.text).split())}, sys.stdout)


def png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit('png: not a PNG')
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                sys.exit('png: only 8-bit RGB/RGBA, not interlaced')
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    prev, colours, other, i = bytearray(stride), {}, 0, 0
    for _ in range(h):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        for x in range(0, stride, bpp):
            px = bytes(line[x:x + 3])
            colours[px] = colours.get(px, 0) + 1
        prev = line
    background = max(colours, key=colours.get)
    other = sum(v for k, v in colours.items() if k != background)
    json.dump({'width': w, 'height': h, 'colours': len(colours),
               'background': background.hex(), 'other_share': other / (w * h)},
              sys.stdout)


if __name__ == '__main__':
    cmd = sys.argv[1] if len(sys.argv) > 1 else ''
    if cmd == 'mdtable':
        mdtable(sys.stdin.read())
    elif cmd == 'html' and len(sys.argv) == 3:
        html(sys.argv[2])
    elif cmd == 'png' and len(sys.argv) == 3:
        png(sys.argv[2])
    else:
        sys.exit(__doc__)
