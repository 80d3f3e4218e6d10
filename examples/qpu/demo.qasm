# Tessera's bundled QPU demo (`tessera demo`; written for this project).
#
# For each of the 16 lanes i:  y[i] = 1 / (i*i + c)
# with c the first uniform; the 16 results go through the VPM to memory at the
# address in the second uniform, by a VDW DMA store.  Syntax: docs/targets/qpu.md.

.set c,        r0
.set out_addr, ra0

        mov c, unif                   # c (same value in every lane)
        mov out_addr, unif            # where the results go
        itof r1, elem_num             # i, as a float
        nop; fmul r2, r1, r1          # i*i on the mul ALU
        fadd r2, r2, c                # i*i + c
        mov recip, r2                 # SFU: 1/x arrives in r4 three instructions later
        mov vw_setup, 0x00001a00      # VPM write setup: horizontal, 32-bit, row 0, stride 0
        nop
        mov vpm, r4                   # r4 is readable now: store the row into the VPM
        mov vw_setup, 0x80904000      # VDW setup: 1 row of 16 32-bit words from VPM row 0
        mov vw_addr, out_addr         # start the DMA to memory
        mov -, vw_wait                # wait until it is done
        nop; nop; thrend              # end the thread: two delay slots follow
        nop
        nop
