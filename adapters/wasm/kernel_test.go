package wasm

import "testing"

func TestKernel(t *testing.T) {
	tests := map[string]func(t *testing.T, k *kernel){
		"zero is never a block": func(t *testing.T, k *kernel) {
			if off := k.alloc(0); off != 0 {
				t.Fatalf("alloc(0) = %d", off)
			}
			if off := k.alloc(1); off == 0 {
				t.Fatal("alloc(1) = 0")
			}
		},
		"length of blocks only": func(t *testing.T, k *kernel) {
			off := k.alloc(5)
			if k.length(off) != 5 || k.length(off+1) != 0 {
				t.Fatalf("length = %d, %d", k.length(off), k.length(off+1))
			}
		},
		"freed block reused and cleared": func(t *testing.T, k *kernel) {
			a := k.alloc(8)
			k.bytes(a, 1)[0] = 7
			k.release(a)
			if b := k.alloc(4); b != a || k.bytes(b, 1)[0] != 0 || k.length(a) != 4 {
				t.Fatalf("alloc after free = %d (want %d)", b, a)
			}
		},
		"limit": func(t *testing.T, k *kernel) {
			if off := k.alloc(pageSize); off != 0 {
				t.Fatalf("alloc past one page = %d", off)
			}
			if off := k.alloc(1 << 63); off != 0 {
				t.Fatalf("huge alloc = %d", off)
			}
		},
		"out of bounds traps": func(t *testing.T, k *kernel) {
			defer func() {
				if recover() != errOutOfBounds {
					t.Fatal("no trap")
				}
			}()
			k.bytes(1<<40, 8)
		},
		"reset": func(t *testing.T, k *kernel) {
			off, _ := k.write([]byte("x"))
			k.errOff = off
			k.reset()
			if k.errOff != 0 || k.length(off) != 0 || len(k.mem) != 1 {
				t.Fatal("not reset")
			}
		},
	}
	for name, f := range tests {
		t.Run(name, func(t *testing.T) { f(t, newKernel(1)) })
	}
}
