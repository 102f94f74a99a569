package oci_test

import (
	"io"
	"log"
)

func nilLogger() *log.Logger { return log.New(io.Discard, "", 0) }
