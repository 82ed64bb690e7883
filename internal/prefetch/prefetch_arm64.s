#include "textflag.h"

// func object(p unsafe.Pointer, size uintptr)
TEXT ·object(SB), NOSPLIT|NOFRAME, $0-16
	MOVD p+0(FP), R0
	MOVD size+8(FP), R1
	CBZ R1, done
	ADD R0, R1, R2
	SUB $1, R2, R2 // the last byte
loop:
	PRFM (R0), PLDL1KEEP
	ADD $64, R0, R0
	SUBS $64, R1, R1
	BHI loop // while bytes are left
	PRFM (R2), PLDL1KEEP
done:
	RET
