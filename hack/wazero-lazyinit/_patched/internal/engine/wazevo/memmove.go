package wazevo

import (
	"reflect"
	"unsafe"
)

//go:linkname memmove runtime.memmove
func memmove(_, _ unsafe.Pointer, _ uintptr)

// kubectl-chart: begin: a function, not a variable set at package initialisation
func memmovPtr() uintptr { return reflect.ValueOf(memmove).Pointer() }

// kubectl-chart: end
