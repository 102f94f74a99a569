package main

import (
	"math"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	for name, tc := range map[string]struct {
		as   uint64
		want int64
	}{
		"unlimited":              {as: math.MaxUint64, want: softMemoryLimit},
		"unknown":                {as: 0, want: softMemoryLimit},
		"large address space":    {as: 64 << 30, want: softMemoryLimit},
		"4 GB address space":     {as: 4000000000, want: 1000000000},
		"tiny address space":     {as: 100 << 20, want: minMemoryLimit},
		"address space over int": {as: math.MaxUint64 - 1, want: softMemoryLimit},
	} {
		t.Run(name, func(t *testing.T) {
			if got := memoryLimit(tc.as); got != tc.want {
				t.Errorf("memoryLimit(%d) = %d, want %d", tc.as, got, tc.want)
			}
		})
	}
}
