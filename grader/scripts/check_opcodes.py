#!/usr/bin/env python3
"""Checks the sm_90 opcode table of grader/src/kernel_code.cpp against cuobjdump's disassembly of real kernels.

    check_opcodes.py KERNEL_CODE_CPP OBJECT_OR_LIBRARY...

Each instruction cuobjdump names HGMMA, HMMA, IMMA, UTMALDG, UBLKCP or LDGSTS in sm_90 code must carry one of the
12-bit codes the table gives that mnemonic, and no other mnemonic may carry one of the table's codes. A global atomic
that adds floating-point values (REDG or ATOMG with .ADD.F32, .ADD.F64, ...) is named REDG.F or ATOMG.F here, as in
the table; an integer one keeps its plain name, which the table does not give. Exit 0 when
both hold, 1 when not, 77 (ctest: SKIPPED) when cuobjdump is not installed or the objects hold no sm_90 code.
"""
import collections
import re
import shutil
import subprocess
import sys

SKIP = 77


def table_of(cpp):
    # constexpr std::uint32_t kOpHmma = 0x23c;  // HMMA (...)
    table = {}
    for m in re.finditer(r'kOp\w+\s*=\s*0x([0-9a-fA-F]+);\s*//\s*([A-Z]+(?:\.F)?)\b', open(cpp).read()):
        table[int(m.group(1), 16)] = m.group(2)
    return table


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    table = table_of(sys.argv[1])
    if not table:
        print('no opcode table found in', sys.argv[1])
        return 1
    tool = shutil.which('cuobjdump')
    if tool is None:
        print('SKIPPED: cuobjdump is not installed here')
        return SKIP
    named = set(table.values())
    line_re = re.compile(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z0-9_]+)((?:\.[A-Z0-9_]+)*)[^;]*;\s*/\* 0x([0-9a-f]{16}) \*/')
    by_code = collections.defaultdict(collections.Counter)
    for obj in sys.argv[2:]:
        text = subprocess.run([tool, '-sass', obj], capture_output=True, text=True, errors='replace').stdout
        arch = None
        for line in text.splitlines():
            if 'arch = ' in line:
                arch = line.split('arch = ')[1].split()[0]
            m = line_re.search(line) if arch in ('sm_90', 'sm_90a') else None
            if m:
                op = m.group(1)
                if op in ('REDG', 'ATOMG', 'RED', 'ATOM') and re.search(r'\.ADD\.(F|BF)', m.group(2)):
                    op += '.F'
                by_code[int(m.group(3), 16) & 0xfff][op] += 1
    if not by_code:
        print('SKIPPED: no sm_90 code in', ' '.join(sys.argv[2:]))
        return SKIP
    bad = 0
    seen = collections.Counter()
    for code, ops in sorted(by_code.items()):
        for op, n in ops.items():
            if op in named:
                seen[op] += n
                if table.get(code) != op:
                    print(f'MISMATCH: {n} {op} carry code {code:#05x}; the table reads it as {table.get(code)}')
                    bad += 1
            elif code in table:
                print(f'MISMATCH: {n} {op} carry code {code:#05x}, which the table reads as {table[code]}')
                bad += 1
    print('sm_90 instructions the table names, as cuobjdump counts them:', dict(sorted(seen.items())))
    for code, name in sorted(table.items()):
        found = ', '.join(f'{op} x{n}' for op, n in by_code.get(code, {}).items()) or 'none in these objects'
        print(f'  {code:#05x} {name}: {found}')
    print('ok' if bad == 0 else f'{bad} mismatches')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
