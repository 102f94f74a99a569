// Command probe links the wazero packages kubectl-chart links and does nothing
// else, so that the package initialisers it runs are wazero's and the Go
// runtime's (lazyinit_test.go).
package main

import (
	_ "github.com/tetratelabs/wazero"
	_ "github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

func main() {}
