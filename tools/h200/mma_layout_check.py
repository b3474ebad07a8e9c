#!/usr/bin/env python3
# Offline check of the fused kernel's mma fragment layout (MmaMath and StagedTile of
# src/backends/cuda/kernels/mma_math.cuh and staged_tile.cuh):
# emulates the PTX fragment layouts of mma.m16n8k16 and movmatrix for one 16-token tile and
# checks S^T = K Q^T, O^T = V^T P^T, full coverage of the staged copies and conflict-free
# shared-memory reads and writes. Run: python3 tools/h200/mma_layout_check.py
# Row-major swizzled staging + mma fragments: checks data flow and smem bank conflicts.
import random
random.seed(2)
def matmul(A, B): return [[sum(A[i][k]*B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]
def T(A): return [list(x) for x in zip(*A)]
def close(a, b): return all(abs(x-y) < 1e-9 for x, y in zip(a, b))
swzK = lambda row: (row & 1) << 2
swzV = lambda row: ((row >> 1) & 3) << 1
for D in (64, 128, 256):
    cpr = D * 2 // 16
    K = [[random.gauss(0, 1) for _ in range(D)] for _ in range(16)]
    V = [[random.gauss(0, 1) for _ in range(D)] for _ in range(16)]
    Q = [[random.gauss(0, 1) for _ in range(D)] for _ in range(8)]
    # stage: physical chunk slots
    Ks = [None] * (16 * cpr); Vs = [None] * (16 * cpr)
    ninstr = 16 * cpr // 32
    for j in range(ninstr):
        for lane in range(32):
            q = j * 32 + lane; row, ch = q // cpr, q % cpr
            Ks[row * cpr + (ch ^ swzK(row))] = K[row][ch*8:ch*8+8]
            Vs[row * cpr + (ch ^ swzV(row))] = V[row][ch*8:ch*8+8]
        # write conflicts: per phase of 8 lanes, 16B slots mod 128B distinct
        for ph in range(4):
            for S, swz in ((Ks, swzK), (Vs, swzV)):
                slots = []
                for lane in range(8*ph, 8*ph+8):
                    q = j*32 + lane; row, ch = q // cpr, q % cpr
                    slots.append((row * cpr + (ch ^ swz(row))) % 8)
                assert len(set(slots)) == 8, ("write conflict", D)
    assert None not in Ks and None not in Vs
    kread = lambda row, ch: Ks[row * cpr + (ch ^ swzK(row))]
    vread = lambda row, ch: Vs[row * cpr + (ch ^ swzV(row))]
    lanes = [(l >> 2, l & 3) for l in range(32)]
    KCH, VCH, MT = D // 32, D // 64, D // 16
    # read conflicts
    for c in range(KCH):
        for i in range(2):
            for ph in range(4):
                sl = [((g + 8*i) * cpr + ((c*4+t) ^ swzK(g + 8*i))) % 8 for (g, t) in lanes[8*ph:8*ph+8]]
                assert len(set(sl)) == 8, ("K read conflict", D)
    vtok = lambda t, i: 2*t + (i & 1) + 8*(i >> 1)
    for c in range(VCH):
        for i in range(4):
            for ph in range(4):
                sl = [(vtok(t, i) * cpr + ((c*8+g) ^ swzV(vtok(t, i)))) % 8 for (g, t) in lanes[8*ph:8*ph+8]]
                assert len(set(sl)) == 8, ("V read conflict", D, c, i, sl)
    def mma(c_frag, a_frag, b_frag):
        A = [[0.0]*16 for _ in range(16)]; B = [[0.0]*8 for _ in range(16)]; C = [[0.0]*8 for _ in range(16)]
        for l, (g, t) in enumerate(lanes):
            a = a_frag[l]
            A[g][2*t:2*t+2] = a[0]; A[g+8][2*t:2*t+2] = a[1]; A[g][2*t+8:2*t+10] = a[2]; A[g+8][2*t+8:2*t+10] = a[3]
            b = b_frag[l]; B[2*t][g], B[2*t+1][g] = b[0]; B[2*t+8][g], B[2*t+9][g] = b[1]
            c = c_frag[l]; C[g][2*t:2*t+2] = c[0:2]; C[g+8][2*t:2*t+2] = c[2:4]
        AB = matmul(A, B); C = [[C[i][j] + AB[i][j] for j in range(8)] for i in range(16)]
        return [[C[g][2*t], C[g][2*t+1], C[g+8][2*t], C[g+8][2*t+1]] for (g, t) in lanes]
    w = lambda ch, k: (ch[2*k], ch[2*k+1])
    q = [[Q[g][(c*4+t)*8:(c*4+t)*8+8] for c in range(KCH)] for (g, t) in lanes]
    s = [[0]*4 for _ in range(32)]; s2 = [[0]*4 for _ in range(32)]
    for c in range(KCH):
        k0 = [kread(g, c*4+t) for (g, t) in lanes]; k1 = [kread(g+8, c*4+t) for (g, t) in lanes]
        s = mma(s, [[w(k0[l], 0), w(k1[l], 0), w(k0[l], 1), w(k1[l], 1)] for l in range(32)], [[w(q[l][c], 0), w(q[l][c], 1)] for l in range(32)])
        s2 = mma(s2, [[w(k0[l], 2), w(k1[l], 2), w(k0[l], 3), w(k1[l], 3)] for l in range(32)], [[w(q[l][c], 2), w(q[l][c], 3)] for l in range(32)])
    ST = matmul(K, T(Q))
    for l, (g, t) in enumerate(lanes):
        assert close([s[l][r] + s2[l][r] for r in range(4)], [ST[g][2*t], ST[g][2*t+1], ST[g+8][2*t], ST[g+8][2*t+1]])
    P = [[random.random() for _ in range(8)] for _ in range(16)]
    def trans(frag):
        M = [[0.0]*8 for _ in range(8)]
        for l, (g, t) in enumerate(lanes): M[g][2*t:2*t+2] = frag[l]
        M = T(M); return [(M[g][2*t], M[g][2*t+1]) for (g, t) in lanes]
    b0 = trans([(P[g][2*t], P[g][2*t+1]) for (g, t) in lanes]); b1 = trans([(P[g+8][2*t], P[g+8][2*t+1]) for (g, t) in lanes])
    vch = [[[vread(vtok(t, i), c*8 + g) for c in range(VCH)] for i in range(4)] for (g, t) in lanes]
    el = lambda v, e: v[e // 8][e % 8]
    o = [[[0]*4 for _ in range(MT)] for _ in range(32)]
    for i in range(MT):
        a = [[(el(v[0], i), el(v[1], i)), (el(v[0], D//16+i), el(v[1], D//16+i)), (el(v[2], i), el(v[3], i)), (el(v[2], D//16+i), el(v[3], D//16+i))] for v in vch]
        res = mma([o[l][i] for l in range(32)], a, [[b0[l], b1[l]] for l in range(32)])
        for l in range(32): o[l][i] = res[l]
    OT = matmul(T(P), V)
    out = [[None]*D for _ in range(8)]
    dmap = lambda g, e: (e // 8) * 64 + g * 8 + e % 8
    for l, (g, t) in enumerate(lanes):
        for i in range(MT):
            d0 = dmap(g, i); d1 = dmap(g, D//16 + i)
            out[2*t][d0] = o[l][i][0]; out[2*t+1][d0] = o[l][i][1]; out[2*t][d1] = o[l][i][2]; out[2*t+1][d1] = o[l][i][3]
    assert all(close(a, b) for a, b in zip(out, OT)), D
    print("D", D, "ok")

# The epilogue's stores of O^T to shared memory ([heads, D] floats, row stride D; MmaMath::store):
# lane (g, t) holds element e of rows 2t and 2t+1 at d = v_dim(g, e), runs of `run` consecutive
# d's (8 at f16/bf16 and e4m3 D=64, 16 at e4m3 D >= 128). Bank conflicts of the one-float stores
# (a warp's 32 words over 32 banks) against the 16-byte stores of four consecutive elements (per
# phase of 8 lanes, 16-byte slots over 8 bank groups), as wavefronts a warp.
def store_wavefronts(D, run, vector):
    vdim = lambda g, e: (e // run) * (8 * run) + g * run + e % run
    total = worst = 0
    step = 4 if vector else 1
    for e0 in list(range(0, D // 16, step)) + list(range(D // 16, D // 8, step)):
        for r in (0, 1):
            addr = [(2 * t + r) * D + vdim(g, e0) for g, t in lanes]  # floats
            if vector:
                assert all(a % 4 == 0 for a in addr) and all(
                    vdim(g, e0 + k) == vdim(g, e0) + k for g, _ in lanes for k in range(4))
                for ph in range(4):
                    banks = [a // 4 % 8 for a in addr[8 * ph:8 * ph + 8]]
                    way = max(banks.count(b) for b in set(banks))
                    total += way; worst = max(worst, way)
            else:
                banks = [a % 32 for a in addr]
                way = max(banks.count(b) for b in set(banks))
                total += way; worst = max(worst, way)
    return total, worst
for D in (64, 128, 256):
    for run in ((8,) if D == 64 else (8, 16)):
        old, old_way = store_wavefronts(D, run, False)
        new, new_way = store_wavefronts(D, run, True)
        assert new < old and new_way <= 4, (D, run)
        print(f"epilogue stores D {D} runs of {run}: {old} wavefronts ({old_way}-way) -> {new} ({new_way}-way)")
