package amd64

import (
	"fmt"

	"github.com/tetratelabs/wazero/internal/engine/wazevo/backend/regalloc"
)

// Amd64-specific registers.
const (
	// rax is a gp register.
	rax = regalloc.RealRegInvalid + 1 + iota
	// rcx is a gp register.
	rcx
	// rdx is a gp register.
	rdx
	// rbx is a gp register.
	rbx
	// rsp is a gp register.
	rsp
	// rbp is a gp register.
	rbp
	// rsi is a gp register.
	rsi
	// rdi is a gp register.
	rdi
	// r8 is a gp register.
	r8
	// r9 is a gp register.
	r9
	// r10 is a gp register.
	r10
	// r11 is a gp register.
	r11
	// r12 is a gp register.
	r12
	// r13 is a gp register.
	r13
	// r14 is a gp register.
	r14
	// r15 is a gp register.
	r15

	// xmm0 is a vector register.
	xmm0
	// xmm1 is a vector register.
	xmm1
	// xmm2 is a vector register.
	xmm2
	// xmm3 is a vector register.
	xmm3
	// xmm4 is a vector register.
	xmm4
	// xmm5 is a vector register.
	xmm5
	// xmm6 is a vector register.
	xmm6
	// xmm7 is a vector register.
	xmm7
	// xmm8 is a vector register.
	xmm8
	// xmm9 is a vector register.
	xmm9
	// xmm10 is a vector register.
	xmm10
	// xmm11 is a vector register.
	xmm11
	// xmm12 is a vector register.
	xmm12
	// xmm13 is a vector register.
	xmm13
	// xmm14 is a vector register.
	xmm14
	// xmm15 is a vector register.
	xmm15
)

// kubectl-chart: begin: constants, not variables set at package initialisation: regalloc.FromRealReg(r, typ) is
// VReg(typ)<<40 | VReg(r)<<32 | VReg(r), the type in bits 40-47 and the real register in 32-39 and 0-31
const (
	intVReg   = regalloc.VReg(regalloc.RegTypeInt) << 40
	floatVReg = regalloc.VReg(regalloc.RegTypeFloat) << 40
)

const (
	raxVReg = intVReg | regalloc.VReg(rax)<<32 | regalloc.VReg(rax)
	rcxVReg = intVReg | regalloc.VReg(rcx)<<32 | regalloc.VReg(rcx)
	rdxVReg = intVReg | regalloc.VReg(rdx)<<32 | regalloc.VReg(rdx)
	rbxVReg = intVReg | regalloc.VReg(rbx)<<32 | regalloc.VReg(rbx)
	rspVReg = intVReg | regalloc.VReg(rsp)<<32 | regalloc.VReg(rsp)
	rbpVReg = intVReg | regalloc.VReg(rbp)<<32 | regalloc.VReg(rbp)
	rsiVReg = intVReg | regalloc.VReg(rsi)<<32 | regalloc.VReg(rsi)
	rdiVReg = intVReg | regalloc.VReg(rdi)<<32 | regalloc.VReg(rdi)
	r8VReg  = intVReg | regalloc.VReg(r8)<<32 | regalloc.VReg(r8)
	r9VReg  = intVReg | regalloc.VReg(r9)<<32 | regalloc.VReg(r9)
	r10VReg = intVReg | regalloc.VReg(r10)<<32 | regalloc.VReg(r10)
	r11VReg = intVReg | regalloc.VReg(r11)<<32 | regalloc.VReg(r11)
	r12VReg = intVReg | regalloc.VReg(r12)<<32 | regalloc.VReg(r12)
	r13VReg = intVReg | regalloc.VReg(r13)<<32 | regalloc.VReg(r13)
	r14VReg = intVReg | regalloc.VReg(r14)<<32 | regalloc.VReg(r14)
	r15VReg = intVReg | regalloc.VReg(r15)<<32 | regalloc.VReg(r15)

	xmm0VReg  = floatVReg | regalloc.VReg(xmm0)<<32 | regalloc.VReg(xmm0)
	xmm1VReg  = floatVReg | regalloc.VReg(xmm1)<<32 | regalloc.VReg(xmm1)
	xmm2VReg  = floatVReg | regalloc.VReg(xmm2)<<32 | regalloc.VReg(xmm2)
	xmm3VReg  = floatVReg | regalloc.VReg(xmm3)<<32 | regalloc.VReg(xmm3)
	xmm4VReg  = floatVReg | regalloc.VReg(xmm4)<<32 | regalloc.VReg(xmm4)
	xmm5VReg  = floatVReg | regalloc.VReg(xmm5)<<32 | regalloc.VReg(xmm5)
	xmm6VReg  = floatVReg | regalloc.VReg(xmm6)<<32 | regalloc.VReg(xmm6)
	xmm7VReg  = floatVReg | regalloc.VReg(xmm7)<<32 | regalloc.VReg(xmm7)
	xmm8VReg  = floatVReg | regalloc.VReg(xmm8)<<32 | regalloc.VReg(xmm8)
	xmm9VReg  = floatVReg | regalloc.VReg(xmm9)<<32 | regalloc.VReg(xmm9)
	xmm10VReg = floatVReg | regalloc.VReg(xmm10)<<32 | regalloc.VReg(xmm10)
	xmm11VReg = floatVReg | regalloc.VReg(xmm11)<<32 | regalloc.VReg(xmm11)
	xmm12VReg = floatVReg | regalloc.VReg(xmm12)<<32 | regalloc.VReg(xmm12)
	xmm13VReg = floatVReg | regalloc.VReg(xmm13)<<32 | regalloc.VReg(xmm13)
	xmm14VReg = floatVReg | regalloc.VReg(xmm14)<<32 | regalloc.VReg(xmm14)
	xmm15VReg = floatVReg | regalloc.VReg(xmm15)<<32 | regalloc.VReg(xmm15)
)

// kubectl-chart: end

var regNames = [...]string{
	rax:   "rax",
	rcx:   "rcx",
	rdx:   "rdx",
	rbx:   "rbx",
	rsp:   "rsp",
	rbp:   "rbp",
	rsi:   "rsi",
	rdi:   "rdi",
	r8:    "r8",
	r9:    "r9",
	r10:   "r10",
	r11:   "r11",
	r12:   "r12",
	r13:   "r13",
	r14:   "r14",
	r15:   "r15",
	xmm0:  "xmm0",
	xmm1:  "xmm1",
	xmm2:  "xmm2",
	xmm3:  "xmm3",
	xmm4:  "xmm4",
	xmm5:  "xmm5",
	xmm6:  "xmm6",
	xmm7:  "xmm7",
	xmm8:  "xmm8",
	xmm9:  "xmm9",
	xmm10: "xmm10",
	xmm11: "xmm11",
	xmm12: "xmm12",
	xmm13: "xmm13",
	xmm14: "xmm14",
	xmm15: "xmm15",
}

func formatVRegSized(r regalloc.VReg, _64 bool) string {
	if r.IsRealReg() {
		if r.RegType() == regalloc.RegTypeInt {
			rr := r.RealReg()
			orig := regNames[rr]
			if rr <= rdi {
				if _64 {
					return "%" + orig
				} else {
					return "%e" + orig[1:]
				}
			} else {
				if _64 {
					return "%" + orig
				} else {
					return "%" + orig + "d"
				}
			}
		} else {
			return "%" + regNames[r.RealReg()]
		}
	} else {
		if r.RegType() == regalloc.RegTypeInt {
			if _64 {
				return fmt.Sprintf("%%r%d?", r.ID())
			} else {
				return fmt.Sprintf("%%r%dd?", r.ID())
			}
		} else {
			return fmt.Sprintf("%%xmm%d?", r.ID())
		}
	}
}
