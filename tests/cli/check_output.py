#!/usr/bin/env python3
"""Checks a tool's output file: strict UTF-8, no raw control characters.

usage: check_output.py text|json FILE
  text: every byte decodes as UTF-8 (strict) and no character is a C0
        control but newline, DEL, a C1 control or a bidirectional control
        (what a terminal would act on).
  json: the same, and every line is a JSON document (json.loads, strict).
Prints nothing and exits 0 when clean; otherwise the first problem, exit 1.
"""
import json
import sys

CONTROLS = set(range(0x00, 0x20)) - {0x0A}
CONTROLS |= set(range(0x7F, 0xA0))
CONTROLS |= {0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0xFEFF}
CONTROLS |= set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))


def main():
    mode, path = sys.argv[1], sys.argv[2]
    data = open(path, 'rb').read()
    try:
        text = data.decode('utf-8', errors='strict')
    except UnicodeDecodeError as e:
        print(f'not UTF-8: {e}')
        return 1
    for i, ch in enumerate(text):
        if ord(ch) in CONTROLS:
            print(f'raw control U+{ord(ch):04X} at character {i}: '
                  f'{text[max(0, i - 40):i + 10]!r}')
            return 1
    if mode == 'json':
        lines = [l for l in text.split('\n') if l]
        if not lines:
            print('no JSON document')
            return 1
        for n, line in enumerate(lines, 1):
            try:
                json.loads(line, strict=True)
            except ValueError as e:
                print(f'line {n} is not JSON: {e}')
                return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
