#include "textflag.h"

// func object(p unsafe.Pointer, size uintptr)
TEXT ·object(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ size+8(FP), CX
	TESTQ CX, CX
	JEQ done
	LEAQ -1(AX)(CX*1), DX // the last byte
loop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	SUBQ $64, CX
	JHI loop // while bytes are left
	PREFETCHT0 (DX)
done:
	RET
