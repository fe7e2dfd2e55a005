# The start of a Kelvin program, in the style of sw/kelvin's crt/kelvin_start.S
# (boards.md §5 [KSTART]). The host writes the image into the TCM and starts the core at
# pc_start 0 with nothing set up [KVC], so _start sits first in .text (section ._init)
# and does all of it: gp and sp, .bss zeroed, main(0, 0). main's return value goes to
# _ret, the output header's return_code, and `mpause` halts the core for the host to read
# the header. The self-loop is only reached if the core is resumed.
        .section ._init, "ax", @progbits
        .balign 4
        .globl  _start
        .type   _start, @function
_start:
        .option push
        .option norelax                 # gp is not set yet: no gp-relative relaxation here
        la      gp, __global_pointer$
        .option pop
        la      sp, __stack_end__
        la      a0, __bss_start__
        la      a1, __bss_end__
1:      bgeu    a0, a1, 2f
        sw      zero, 0(a0)
        addi    a0, a0, 4
        j       1b
2:      li      a0, 0                   # argc
        li      a1, 0                   # argv
        call    main
        la      t0, _ret
        sw      a0, 0(t0)
        .word   0x08000073              # mpause, Kelvin's "end of program" (no assembler mnemonic)
3:      j       3b
        .size   _start, . - _start
