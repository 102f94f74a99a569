//go:build wasip1

// Command cli is a cli/v1 test plugin whose first argument picks what it does,
// including breaking each limit of its runtimeConfig.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-chart/kubectl-chart/adapters/wasm/testdata/pdk"
)

func main() {}

//go:wasmexport helm_plugin_main
func pluginMain() uint32 {
	var in struct {
		ExtraArgs []string `json:"extraArgs"`
	}
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		pdk.Error("bad input: " + err.Error())
		return 1
	}
	rc := run(in.ExtraArgs)
	pdk.Output([]byte(`{}`))
	return rc
}

// hsInit says how the host called hs_init: extism treats a module that
// exports it as Haskell's and calls it, after _initialize, before the entry.
var hsInit = "hs_init not called"

//go:wasmexport hs_init
func hsInitExport(argc, argv int32) {
	hsInit = fmt.Sprintf("hs_init(%d, %d)", argc, argv)
}

//go:wasmexport other_entry
func otherEntry() uint32 {
	fmt.Println("other entry")
	pdk.Output([]byte(`{}`))
	return 0
}

func run(args []string) uint32 {
	mode, rest := "", []string(nil)
	if len(args) > 0 {
		mode, rest = args[0], args[1:]
	}
	arg := strings.Join(rest, " ")
	switch mode {
	case "fail":
		pdk.Error("cli failed on purpose")
		return 1
	case "exit":
		n, _ := strconv.Atoi(arg)
		fmt.Fprintln(os.Stderr, "exiting with", n)
		return uint32(n)
	case "stdin":
		b, _ := io.ReadAll(os.Stdin)
		fmt.Printf("stdin: %s", b)
	case "env":
		for _, k := range rest {
			v, ok := os.LookupEnv(k)
			fmt.Printf("%s=%q %v\n", k, v, ok)
		}
	case "hsinit":
		fmt.Println(hsInit)
	case "readfile":
		b, err := os.ReadFile(arg)
		fmt.Printf("read %s: %q %v\n", arg, b, err)
	case "tmp":
		err := os.WriteFile("/tmp/probe", []byte("in tmp"), 0o600)
		b, rerr := os.ReadFile("/tmp/probe")
		fmt.Printf("tmp: %v %q %v\n", err, b, rerr)
	case "http":
		status, body := pdk.Get(arg)
		fmt.Printf("http %d %q\n", status, body)
	case "config":
		v, ok := pdk.Config(arg)
		fmt.Printf("config %s=%q %v\n", arg, v, ok)
	case "var":
		n, _ := strconv.Atoi(arg)
		pdk.SetVar("v", make([]byte, n))
		fmt.Printf("var %d\n", len(pdk.Var("v")))
	case "mem":
		var keep [][]byte
		for i := 0; ; i++ {
			keep = append(keep, make([]byte, 1<<20))
			keep[i][0] = 1
		}
	case "spin":
		for start := time.Now(); ; {
			if time.Since(start) < 0 {
				return 9
			}
		}
	case "panic":
		panic("plugin panics")
	default:
		fmt.Printf("hello from wasm cli: %q\n", args)
		fmt.Fprintln(os.Stderr, "wasm cli writes to stderr")
	}
	return 0
}
