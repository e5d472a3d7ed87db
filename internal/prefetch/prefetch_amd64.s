#include "textflag.h"

// func addr(p unsafe.Pointer)
TEXT ·addr(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func indexes(base unsafe.Pointer, n, size uintptr, idx *uint32, m int, lo uint32)
TEXT ·indexes(SB), NOSPLIT|NOFRAME, $0-44
	MOVQ base+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ size+16(FP), DX
	MOVQ idx+24(FP), DI
	MOVQ m+32(FP), BX
	MOVL lo+40(FP), R8
loop:
	TESTQ BX, BX
	JEQ done
	MOVL (DI), AX
	SUBL R8, AX // v - lo, zero-extended: a v below lo wraps past n
	CMPQ AX, CX
	JAE next
	IMULQ DX, AX
	PREFETCHT0 (SI)(AX*1)
next:
	ADDQ $4, DI
	DECQ BX
	JMP loop
done:
	RET
