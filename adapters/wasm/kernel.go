package wasm

// pageSize is a Wasm memory page.
const pageSize = 65536

// maxKernelBytes bounds the kernel's memory when the plugin sets no page limit:
// extism's kernel is a Wasm32 memory, at most 4 GiB.
const maxKernelBytes = 1 << 32

// kernel is extism's kernel (the memory the plugin reaches through
// extism:host/env) held on the Go side: blocks addressed by opaque offsets, the
// input, the output and the error. Offset 0 means "none", so it is never handed
// out.
type kernel struct {
	mem    []byte
	limit  uint64
	blocks map[uint64]uint64 // live block offset → length
	free   []span            // freed blocks, reused first fit

	input, inputLen   uint64
	output, outputLen uint64
	errOff            uint64
}

type span struct{ off, n uint64 }

// newKernel returns a kernel whose memory stays within maxPages Wasm pages (none:
// extism's 4 GiB).
func newKernel(maxPages uint32) *kernel {
	k := &kernel{limit: maxKernelBytes, blocks: map[uint64]uint64{}}
	if maxPages > 0 {
		k.limit = uint64(maxPages) * pageSize
	}
	k.reset()
	return k
}

func (k *kernel) reset() {
	k.mem = k.mem[:0]
	k.mem = append(k.mem, 0) // offset 0 is never a block
	clear(k.blocks)
	k.free = k.free[:0]
	k.input, k.inputLen, k.output, k.outputLen, k.errOff = 0, 0, 0, 0, 0
}

// alloc returns a block of n bytes, or 0 when n is 0 or the memory is full (as
// the kernel's alloc does).
func (k *kernel) alloc(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	for i, s := range k.free {
		if s.n < n {
			continue
		}
		if s.n == n {
			k.free = append(k.free[:i], k.free[i+1:]...)
		} else {
			k.free[i] = span{s.off + n, s.n - n}
		}
		clear(k.mem[s.off : s.off+n])
		k.blocks[s.off] = n
		return s.off
	}
	off := uint64(len(k.mem))
	if n > k.limit || off > k.limit-n {
		return 0
	}
	k.mem = append(k.mem, make([]byte, n)...)
	k.blocks[off] = n
	return off
}

func (k *kernel) release(off uint64) {
	n, ok := k.blocks[off]
	if !ok {
		return
	}
	delete(k.blocks, off)
	k.free = append(k.free, span{off, n})
}

// length is a live block's length, 0 for anything else.
func (k *kernel) length(off uint64) uint64 { return k.blocks[off] }

// read returns the n bytes at off, if they are inside the memory.
func (k *kernel) read(off, n uint64) ([]byte, bool) {
	if off > uint64(len(k.mem)) || n > uint64(len(k.mem))-off {
		return nil, false
	}
	return k.mem[off : off+n], true
}

// bytes are the n bytes at off; an access outside the memory traps (it is
// only called from host functions, whose panics wazero turns into errors).
func (k *kernel) bytes(off, n uint64) []byte {
	b, ok := k.read(off, n)
	if !ok {
		panic(errOutOfBounds)
	}
	return b
}

// block is a live block's content (a copy), as extism's ReadBytes reads it.
func (k *kernel) block(off uint64) []byte {
	return append([]byte(nil), k.bytes(off, k.length(off))...)
}

// write stores b in a new block; 0 when b is empty.
func (k *kernel) write(b []byte) (uint64, error) {
	if len(b) == 0 {
		return 0, nil
	}
	off := k.alloc(uint64(len(b)))
	if off == 0 {
		return 0, errKernelFull
	}
	copy(k.mem[off:], b)
	return off, nil
}
