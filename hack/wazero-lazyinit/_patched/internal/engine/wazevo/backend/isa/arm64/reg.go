package arm64

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tetratelabs/wazero/internal/engine/wazevo/backend/regalloc"
)

// Arm64-specific registers.
//
// See https://developer.arm.com/documentation/dui0801/a/Overview-of-AArch64-state/Predeclared-core-register-names-in-AArch64-state

const (
	// General purpose registers. Note that we do not distinguish wn and xn registers
	// because they are the same from the perspective of register allocator, and
	// the size can be determined by the type of the instruction.

	x0 = regalloc.RealRegInvalid + 1 + iota
	x1
	x2
	x3
	x4
	x5
	x6
	x7
	x8
	x9
	x10
	x11
	x12
	x13
	x14
	x15
	x16
	x17
	x18
	x19
	x20
	x21
	x22
	x23
	x24
	x25
	x26
	x27
	x28
	x29
	x30

	// Vector registers. Note that we do not distinguish vn and dn, ... registers
	// because they are the same from the perspective of register allocator, and
	// the size can be determined by the type of the instruction.

	v0
	v1
	v2
	v3
	v4
	v5
	v6
	v7
	v8
	v9
	v10
	v11
	v12
	v13
	v14
	v15
	v16
	v17
	v18
	v19
	v20
	v21
	v22
	v23
	v24
	v25
	v26
	v27
	v28
	v29
	v30
	v31

	// Special registers

	xzr
	sp
	lr  = x30
	fp  = x29
	tmp = x27
)

// kubectl-chart: begin: constants, not variables set at package initialisation: regalloc.FromRealReg(r, typ) is
// VReg(typ)<<40 | VReg(r)<<32 | VReg(r), the type in bits 40-47 and the real register in 32-39 and 0-31
const (
	intVReg   = regalloc.VReg(regalloc.RegTypeInt) << 40
	floatVReg = regalloc.VReg(regalloc.RegTypeFloat) << 40
)

const (
	x0VReg  = intVReg | regalloc.VReg(x0)<<32 | regalloc.VReg(x0)
	x1VReg  = intVReg | regalloc.VReg(x1)<<32 | regalloc.VReg(x1)
	x2VReg  = intVReg | regalloc.VReg(x2)<<32 | regalloc.VReg(x2)
	x3VReg  = intVReg | regalloc.VReg(x3)<<32 | regalloc.VReg(x3)
	x4VReg  = intVReg | regalloc.VReg(x4)<<32 | regalloc.VReg(x4)
	x5VReg  = intVReg | regalloc.VReg(x5)<<32 | regalloc.VReg(x5)
	x6VReg  = intVReg | regalloc.VReg(x6)<<32 | regalloc.VReg(x6)
	x7VReg  = intVReg | regalloc.VReg(x7)<<32 | regalloc.VReg(x7)
	x8VReg  = intVReg | regalloc.VReg(x8)<<32 | regalloc.VReg(x8)
	x9VReg  = intVReg | regalloc.VReg(x9)<<32 | regalloc.VReg(x9)
	x10VReg = intVReg | regalloc.VReg(x10)<<32 | regalloc.VReg(x10)
	x11VReg = intVReg | regalloc.VReg(x11)<<32 | regalloc.VReg(x11)
	x12VReg = intVReg | regalloc.VReg(x12)<<32 | regalloc.VReg(x12)
	x13VReg = intVReg | regalloc.VReg(x13)<<32 | regalloc.VReg(x13)
	x14VReg = intVReg | regalloc.VReg(x14)<<32 | regalloc.VReg(x14)
	x15VReg = intVReg | regalloc.VReg(x15)<<32 | regalloc.VReg(x15)
	x16VReg = intVReg | regalloc.VReg(x16)<<32 | regalloc.VReg(x16)
	x17VReg = intVReg | regalloc.VReg(x17)<<32 | regalloc.VReg(x17)
	x18VReg = intVReg | regalloc.VReg(x18)<<32 | regalloc.VReg(x18)
	x19VReg = intVReg | regalloc.VReg(x19)<<32 | regalloc.VReg(x19)
	x20VReg = intVReg | regalloc.VReg(x20)<<32 | regalloc.VReg(x20)
	x21VReg = intVReg | regalloc.VReg(x21)<<32 | regalloc.VReg(x21)
	x22VReg = intVReg | regalloc.VReg(x22)<<32 | regalloc.VReg(x22)
	x23VReg = intVReg | regalloc.VReg(x23)<<32 | regalloc.VReg(x23)
	x24VReg = intVReg | regalloc.VReg(x24)<<32 | regalloc.VReg(x24)
	x25VReg = intVReg | regalloc.VReg(x25)<<32 | regalloc.VReg(x25)
	x26VReg = intVReg | regalloc.VReg(x26)<<32 | regalloc.VReg(x26)
	x27VReg = intVReg | regalloc.VReg(x27)<<32 | regalloc.VReg(x27)
	x28VReg = intVReg | regalloc.VReg(x28)<<32 | regalloc.VReg(x28)
	x29VReg = intVReg | regalloc.VReg(x29)<<32 | regalloc.VReg(x29)
	x30VReg = intVReg | regalloc.VReg(x30)<<32 | regalloc.VReg(x30)
	v0VReg  = floatVReg | regalloc.VReg(v0)<<32 | regalloc.VReg(v0)
	v1VReg  = floatVReg | regalloc.VReg(v1)<<32 | regalloc.VReg(v1)
	v2VReg  = floatVReg | regalloc.VReg(v2)<<32 | regalloc.VReg(v2)
	v3VReg  = floatVReg | regalloc.VReg(v3)<<32 | regalloc.VReg(v3)
	v4VReg  = floatVReg | regalloc.VReg(v4)<<32 | regalloc.VReg(v4)
	v5VReg  = floatVReg | regalloc.VReg(v5)<<32 | regalloc.VReg(v5)
	v6VReg  = floatVReg | regalloc.VReg(v6)<<32 | regalloc.VReg(v6)
	v7VReg  = floatVReg | regalloc.VReg(v7)<<32 | regalloc.VReg(v7)
	v8VReg  = floatVReg | regalloc.VReg(v8)<<32 | regalloc.VReg(v8)
	v9VReg  = floatVReg | regalloc.VReg(v9)<<32 | regalloc.VReg(v9)
	v10VReg = floatVReg | regalloc.VReg(v10)<<32 | regalloc.VReg(v10)
	v11VReg = floatVReg | regalloc.VReg(v11)<<32 | regalloc.VReg(v11)
	v12VReg = floatVReg | regalloc.VReg(v12)<<32 | regalloc.VReg(v12)
	v13VReg = floatVReg | regalloc.VReg(v13)<<32 | regalloc.VReg(v13)
	v14VReg = floatVReg | regalloc.VReg(v14)<<32 | regalloc.VReg(v14)
	v15VReg = floatVReg | regalloc.VReg(v15)<<32 | regalloc.VReg(v15)
	v16VReg = floatVReg | regalloc.VReg(v16)<<32 | regalloc.VReg(v16)
	v17VReg = floatVReg | regalloc.VReg(v17)<<32 | regalloc.VReg(v17)
	v18VReg = floatVReg | regalloc.VReg(v18)<<32 | regalloc.VReg(v18)
	v19VReg = floatVReg | regalloc.VReg(v19)<<32 | regalloc.VReg(v19)
	v20VReg = floatVReg | regalloc.VReg(v20)<<32 | regalloc.VReg(v20)
	v21VReg = floatVReg | regalloc.VReg(v21)<<32 | regalloc.VReg(v21)
	v22VReg = floatVReg | regalloc.VReg(v22)<<32 | regalloc.VReg(v22)
	v23VReg = floatVReg | regalloc.VReg(v23)<<32 | regalloc.VReg(v23)
	v24VReg = floatVReg | regalloc.VReg(v24)<<32 | regalloc.VReg(v24)
	v25VReg = floatVReg | regalloc.VReg(v25)<<32 | regalloc.VReg(v25)
	v26VReg = floatVReg | regalloc.VReg(v26)<<32 | regalloc.VReg(v26)
	v27VReg = floatVReg | regalloc.VReg(v27)<<32 | regalloc.VReg(v27)
	// lr (link register) holds the return address at the function entry.
	lrVReg = x30VReg
	// tmpReg is used to perform spill/load on large stack offsets, and load large constants.
	// Therefore, be cautious to use this register in the middle of the compilation, especially before the register allocation.
	// This is the same as golang/go, but it's only described in the source code:
	// https://github.com/golang/go/blob/go1.24.0/src/cmd/compile/internal/ssa/_gen/ARM64Ops.go#L59
	// https://github.com/golang/go/blob/go1.24.0/src/cmd/compile/internal/ssa/_gen/ARM64Ops.go#L13-L15
	tmpRegVReg = intVReg | regalloc.VReg(tmp)<<32 | regalloc.VReg(tmp)
	v28VReg    = floatVReg | regalloc.VReg(v28)<<32 | regalloc.VReg(v28)
	v29VReg    = floatVReg | regalloc.VReg(v29)<<32 | regalloc.VReg(v29)
	v30VReg    = floatVReg | regalloc.VReg(v30)<<32 | regalloc.VReg(v30)
	v31VReg    = floatVReg | regalloc.VReg(v31)<<32 | regalloc.VReg(v31)
	xzrVReg    = intVReg | regalloc.VReg(xzr)<<32 | regalloc.VReg(xzr)
	spVReg     = intVReg | regalloc.VReg(sp)<<32 | regalloc.VReg(sp)
	fpVReg     = intVReg | regalloc.VReg(fp)<<32 | regalloc.VReg(fp)
)

// kubectl-chart: end

var regNames = [...]string{
	x0:  "x0",
	x1:  "x1",
	x2:  "x2",
	x3:  "x3",
	x4:  "x4",
	x5:  "x5",
	x6:  "x6",
	x7:  "x7",
	x8:  "x8",
	x9:  "x9",
	x10: "x10",
	x11: "x11",
	x12: "x12",
	x13: "x13",
	x14: "x14",
	x15: "x15",
	x16: "x16",
	x17: "x17",
	x18: "x18",
	x19: "x19",
	x20: "x20",
	x21: "x21",
	x22: "x22",
	x23: "x23",
	x24: "x24",
	x25: "x25",
	x26: "x26",
	x27: "x27",
	x28: "x28",
	x29: "x29",
	x30: "x30",
	xzr: "xzr",
	sp:  "sp",
	v0:  "v0",
	v1:  "v1",
	v2:  "v2",
	v3:  "v3",
	v4:  "v4",
	v5:  "v5",
	v6:  "v6",
	v7:  "v7",
	v8:  "v8",
	v9:  "v9",
	v10: "v10",
	v11: "v11",
	v12: "v12",
	v13: "v13",
	v14: "v14",
	v15: "v15",
	v16: "v16",
	v17: "v17",
	v18: "v18",
	v19: "v19",
	v20: "v20",
	v21: "v21",
	v22: "v22",
	v23: "v23",
	v24: "v24",
	v25: "v25",
	v26: "v26",
	v27: "v27",
	v28: "v28",
	v29: "v29",
	v30: "v30",
	v31: "v31",
}

func formatVRegSized(r regalloc.VReg, size byte) (ret string) {
	if r.IsRealReg() {
		ret = regNames[r.RealReg()]
		switch ret[0] {
		case 'x':
			switch size {
			case 32:
				ret = strings.Replace(ret, "x", "w", 1)
			case 64:
			default:
				panic("BUG: invalid register size: " + strconv.Itoa(int(size)))
			}
		case 'v':
			switch size {
			case 32:
				ret = strings.Replace(ret, "v", "s", 1)
			case 64:
				ret = strings.Replace(ret, "v", "d", 1)
			case 128:
				ret = strings.Replace(ret, "v", "q", 1)
			default:
				panic("BUG: invalid register size")
			}
		}
	} else {
		switch r.RegType() {
		case regalloc.RegTypeInt:
			switch size {
			case 32:
				ret = fmt.Sprintf("w%d?", r.ID())
			case 64:
				ret = fmt.Sprintf("x%d?", r.ID())
			default:
				panic("BUG: invalid register size: " + strconv.Itoa(int(size)))
			}
		case regalloc.RegTypeFloat:
			switch size {
			case 32:
				ret = fmt.Sprintf("s%d?", r.ID())
			case 64:
				ret = fmt.Sprintf("d%d?", r.ID())
			case 128:
				ret = fmt.Sprintf("q%d?", r.ID())
			default:
				panic("BUG: invalid register size")
			}
		default:
			panic(fmt.Sprintf("BUG: invalid register type: %d for %s", r.RegType(), r))
		}
	}
	return
}

func formatVRegWidthVec(r regalloc.VReg, width vecArrangement) (ret string) {
	var id string
	wspec := strings.ToLower(width.String())
	if r.IsRealReg() {
		id = regNames[r.RealReg()][1:]
	} else {
		id = fmt.Sprintf("%d?", r.ID())
	}
	ret = fmt.Sprintf("%s%s", wspec, id)
	return
}

func formatVRegVec(r regalloc.VReg, arr vecArrangement, index vecIndex) (ret string) {
	id := fmt.Sprintf("v%d?", r.ID())
	if r.IsRealReg() {
		id = regNames[r.RealReg()]
	}
	ret = fmt.Sprintf("%s.%s", id, strings.ToLower(arr.String()))
	if index != vecIndexNone {
		ret += fmt.Sprintf("[%d]", index)
	}
	return
}

func regTypeToRegisterSizeInBits(r regalloc.RegType) byte {
	switch r {
	case regalloc.RegTypeInt:
		return 64
	case regalloc.RegTypeFloat:
		return 128
	default:
		panic("BUG: invalid register type")
	}
}

var regNumberInEncoding = [...]uint32{
	x0:  0,
	x1:  1,
	x2:  2,
	x3:  3,
	x4:  4,
	x5:  5,
	x6:  6,
	x7:  7,
	x8:  8,
	x9:  9,
	x10: 10,
	x11: 11,
	x12: 12,
	x13: 13,
	x14: 14,
	x15: 15,
	x16: 16,
	x17: 17,
	x18: 18,
	x19: 19,
	x20: 20,
	x21: 21,
	x22: 22,
	x23: 23,
	x24: 24,
	x25: 25,
	x26: 26,
	x27: 27,
	x28: 28,
	x29: 29,
	x30: 30,
	xzr: 31,
	sp:  31,
	v0:  0,
	v1:  1,
	v2:  2,
	v3:  3,
	v4:  4,
	v5:  5,
	v6:  6,
	v7:  7,
	v8:  8,
	v9:  9,
	v10: 10,
	v11: 11,
	v12: 12,
	v13: 13,
	v14: 14,
	v15: 15,
	v16: 16,
	v17: 17,
	v18: 18,
	v19: 19,
	v20: 20,
	v21: 21,
	v22: 22,
	v23: 23,
	v24: 24,
	v25: 25,
	v26: 26,
	v27: 27,
	v28: 28,
	v29: 29,
	v30: 30,
	v31: 31,
}
