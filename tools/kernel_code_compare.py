#!/usr/bin/env python3
"""Compares the machine code (SASS) of every kernel in two sets of CUDA object files without
cuobjdump: extracts each object's fatbin cubins (zstd-compressed entries through /usr/bin/zstd),
then, per architecture and kernel, compares the bytes of its .text.<kernel> section (the SASS
instructions) and that section's header fields (sh_info carries the register count), and the
kernel's .nv.shared.*/.nv.constant0.* sections. Anonymous-namespace hashes (which follow the
source path) are normalized. .nv.info.* (attributes incl. line-info-related offsets) and debug
sections are reported separately.
Usage: kernel_code_compare.py BASE_OBJ_DIR NEW_OBJ_DIR OBJ..."""
import re, struct, subprocess, sys

def cubins(path):
    data = open(path, 'rb').read()
    magic = struct.pack('<I', 0xBA55ED50)
    i = data.find(magic)
    out = {}
    while i >= 0:
        _, hsize, fsize = struct.unpack_from('<HHQ', data, i + 4)
        off, end = i + hsize, i + hsize + fsize
        while off < end:
            kind, _, ehsize, psize = struct.unpack_from('<HHIQ', data, off)
            hdr = data[off:off + ehsize]
            arch = struct.unpack_from('<I', hdr, 28)[0]
            payload = data[off + ehsize: off + ehsize + psize]
            if kind == 2:
                if payload[:4] == b'\x28\xb5\x2f\xfd':
                    csize = struct.unpack_from('<I', hdr, 16)[0]
                    payload = subprocess.run(['zstd', '-d', '-c'], input=payload[:csize],
                                             capture_output=True, check=True).stdout
                assert payload[:4] == b'\x7fELF'
                out[f'sm_{arch}'] = payload
            off += ehsize + psize
        i = data.find(magic, end)
    return out

def sections(d):
    shoff, = struct.unpack_from('<Q', d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
    stro = hdrs[shstrndx][4]
    out = {}
    for (name, typ, flags, addr, off, size, link, info, align, entsize) in hdrs:
        n = d[stro + name:d.index(b'\0', stro + name)].decode()
        n = re.sub(r'_GLOBAL__N__[0-9a-f]+_', '_GLOBAL__N__X_', n)
        out[n] = (typ, flags, size, info, align, d[off:off + size] if typ != 8 else b'')
    return out

base_dir, new_dir, objs = sys.argv[1], sys.argv[2], sys.argv[3:]
all_same = True
total = 0
for obj in objs:
    b_all, n_all = cubins(f'{base_dir}/{obj}'), cubins(f'{new_dir}/{obj}')
    assert sorted(b_all) == sorted(n_all)
    for arch in sorted(b_all):
        b, n = sections(b_all[arch]), sections(n_all[arch])
        kb = sorted(k for k in b if k.startswith('.text.'))
        kn = sorted(k for k in n if k.startswith('.text.'))
        code = [k for k in kb if k in n and b[k] != n[k]]
        data = [k for k in b if k.startswith(('.nv.shared.', '.nv.constant0.')) and b[k] != n.get(k)]
        info = [k for k in b if k.startswith('.nv.info.') and b[k] != n.get(k)]
        same = kb == kn and not code and not data
        all_same &= same
        total += len(kb)
        print(f'{obj} {arch}: {len(kb)} kernels (new {len(kn)}), same kernel set {kb == kn}, '
              f'code differs in {len(code)}, shared/constant sections differ in {len(data)}, '
              f'.nv.info differs in {len(info)}')
        for k in code[:10]:
            print('   code differs:', k)
print(f'TOTAL {total} kernel bodies (per architecture): ' + ('ALL IDENTICAL' if all_same else 'DIFFERENCES'))
