package wasm

import (
	"errors"
	"fmt"
)

// errOutOfBounds is a kernel access outside its memory; the plugin traps.
var errOutOfBounds = errors.New("out of bounds memory access")

// errKernelFull is an allocation past the plugin's memory limit.
var errKernelFull = errors.New("failed to write to memory")

// ErrUnknownFunction is a call of a function the module does not export.
var ErrUnknownFunction = errors.New("unknown function")

// unknownFunction is extism's words for a missing entry point.
func unknownFunction(name string) error {
	return fmt.Errorf("%w: %s", ErrUnknownFunction, name)
}
