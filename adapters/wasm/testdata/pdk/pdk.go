//go:build wasip1

// Package pdk is the few extism:host/env imports the test plugins use.
package pdk

import "encoding/binary"

//go:wasmimport extism:host/env input_length
func inputLength() uint64

//go:wasmimport extism:host/env input_load_u8
func inputLoadU8(uint64) uint32

//go:wasmimport extism:host/env alloc
func alloc(uint64) uint64

//go:wasmimport extism:host/env length
func length(uint64) uint64

//go:wasmimport extism:host/env load_u8
func loadU8(uint64) uint32

//go:wasmimport extism:host/env store_u8
func storeU8(uint64, uint32)

//go:wasmimport extism:host/env store_u64
func storeU64(uint64, uint64)

//go:wasmimport extism:host/env output_set
func outputSet(uint64, uint64)

//go:wasmimport extism:host/env error_set
func errorSet(uint64)

//go:wasmimport extism:host/env config_get
func configGet(uint64) uint64

//go:wasmimport extism:host/env var_set
func varSet(uint64, uint64)

//go:wasmimport extism:host/env var_get
func varGet(uint64) uint64

//go:wasmimport extism:host/env http_request
func httpRequest(uint64, uint64) uint64

//go:wasmimport extism:host/env http_status_code
func httpStatusCode() int32

// Input is the call's input.
func Input() []byte {
	n := inputLength()
	b := make([]byte, n)
	for i := range n {
		b[i] = byte(inputLoadU8(i))
	}
	return b
}

func store(b []byte) uint64 {
	off := alloc(uint64(len(b)))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		storeU64(off+uint64(i), binary.LittleEndian.Uint64(b[i:]))
	}
	for ; i < len(b); i++ {
		storeU8(off+uint64(i), uint32(b[i]))
	}
	return off
}

func load(off uint64) []byte {
	if off == 0 {
		return nil
	}
	n := length(off)
	b := make([]byte, n)
	for i := range n {
		b[i] = byte(loadU8(off + i))
	}
	return b
}

// Output sets the call's output.
func Output(b []byte) { outputSet(store(b), uint64(len(b))) }

// Error sets the call's error.
func Error(msg string) { errorSet(store([]byte(msg))) }

// Config reads a config key.
func Config(key string) (string, bool) {
	off := configGet(store([]byte(key)))
	return string(load(off)), off != 0
}

// SetVar stores a variable.
func SetVar(name string, value []byte) { varSet(store([]byte(name)), store(value)) }

// Var reads a variable.
func Var(name string) []byte { return load(varGet(store([]byte(name)))) }

// Get makes an HTTP GET request through the host.
func Get(url string) (int32, []byte) {
	body := load(httpRequest(store([]byte(`{"url":"`+url+`","method":"GET"}`)), 0))
	return httpStatusCode(), body
}
