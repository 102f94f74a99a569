package wasm

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// EnvModule is the module plugins import extism's functions from.
const EnvModule = "extism:host/env"

// logLevelOff is what get_log_level answers: Helm sets no level, so plugins
// log nothing.
const logLevelOff = math.MaxInt32

// varEntryOverhead is what extism counts for each variable besides its name
// and value (a slice and a string header) against maxVarBytes.
const varEntryOverhead = 24 + 16

const (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

// session is the state of one plugin call: its kernel, variables, settings and
// the last HTTP response's status and headers.
type session struct {
	k        *kernel
	manifest *Manifest
	vars     map[string][]byte
	http     httpDoer
	log      func(level, msg string)

	lastStatus  int32
	lastHeaders map[string]string
}

// instantiateEnv builds extism:host/env for s in rt.
func (s *session) instantiateEnv(ctx context.Context, rt wazero.Runtime) error {
	b := rt.NewHostModuleBuilder(EnvModule)
	fn := func(name string, params, results []api.ValueType, f func(stack []uint64)) {
		b.NewFunctionBuilder().WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) { f(stack) }), params, results).Export(name)
	}
	k := s.k
	fn("alloc", []api.ValueType{i64}, []api.ValueType{i64}, func(st []uint64) { st[0] = k.alloc(st[0]) })
	fn("free", []api.ValueType{i64}, nil, func(st []uint64) { k.release(st[0]) })
	fn("length", []api.ValueType{i64}, []api.ValueType{i64}, func(st []uint64) { st[0] = k.length(st[0]) })
	fn("length_unsafe", []api.ValueType{i64}, []api.ValueType{i64}, func(st []uint64) { st[0] = k.length(st[0]) })
	fn("load_u8", []api.ValueType{i64}, []api.ValueType{i32}, func(st []uint64) { st[0] = uint64(k.bytes(st[0], 1)[0]) })
	fn("load_u64", []api.ValueType{i64}, []api.ValueType{i64}, func(st []uint64) {
		st[0] = binary.LittleEndian.Uint64(k.bytes(st[0], 8))
	})
	fn("store_u8", []api.ValueType{i64, i32}, nil, func(st []uint64) { k.bytes(st[0], 1)[0] = byte(st[1]) })
	fn("store_u64", []api.ValueType{i64, i64}, nil, func(st []uint64) {
		binary.LittleEndian.PutUint64(k.bytes(st[0], 8), st[1])
	})
	fn("input_set", []api.ValueType{i64, i64}, nil, func(st []uint64) { k.input, k.inputLen = st[0], st[1] })
	fn("input_length", nil, []api.ValueType{i64}, func(st []uint64) { st[0] = k.inputLen })
	fn("input_offset", nil, []api.ValueType{i64}, func(st []uint64) { st[0] = k.input })
	fn("input_load_u8", []api.ValueType{i64}, []api.ValueType{i32}, func(st []uint64) {
		st[0] = uint64(k.bytes(k.input+st[0], 1)[0])
	})
	fn("input_load_u64", []api.ValueType{i64}, []api.ValueType{i64}, func(st []uint64) {
		st[0] = binary.LittleEndian.Uint64(k.bytes(k.input+st[0], 8))
	})
	fn("output_set", []api.ValueType{i64, i64}, nil, func(st []uint64) { k.output, k.outputLen = st[0], st[1] })
	fn("output_length", nil, []api.ValueType{i64}, func(st []uint64) { st[0] = k.outputLen })
	fn("output_offset", nil, []api.ValueType{i64}, func(st []uint64) { st[0] = k.output })
	fn("reset", nil, nil, func([]uint64) { k.reset() })
	fn("error_set", []api.ValueType{i64}, nil, func(st []uint64) { k.errOff = st[0] })
	fn("error_get", nil, []api.ValueType{i64}, func(st []uint64) { st[0] = k.errOff })
	fn("memory_bytes", nil, []api.ValueType{i64}, func(st []uint64) { st[0] = uint64(len(k.mem)) })
	fn("config_get", []api.ValueType{i64}, []api.ValueType{i64}, func(st []uint64) { st[0] = s.configGet(st[0]) })
	fn("var_get", []api.ValueType{i64}, []api.ValueType{i64}, func(st []uint64) { st[0] = s.varGet(st[0]) })
	fn("var_set", []api.ValueType{i64, i64}, nil, func(st []uint64) { s.varSet(st[0], st[1]) })
	b.NewFunctionBuilder().WithGoFunction(api.GoFunc(func(ctx context.Context, st []uint64) {
		st[0] = s.httpRequest(ctx, st[0], st[1])
	}), []api.ValueType{i64, i64}, []api.ValueType{i64}).Export("http_request")
	fn("http_status_code", nil, []api.ValueType{i32}, func(st []uint64) { st[0] = api.EncodeI32(s.lastStatus) })
	fn("http_headers", nil, []api.ValueType{i64}, func(st []uint64) { st[0] = s.httpHeaders() })
	fn("get_log_level", nil, []api.ValueType{i32}, func(st []uint64) { st[0] = api.EncodeI32(logLevelOff) })
	for _, level := range []string{"trace", "debug", "info", "warn", "error"} {
		fn("log_"+level, []api.ValueType{i64}, nil, func(st []uint64) {
			msg := string(k.block(st[0]))
			k.release(st[0])
			if s.log != nil {
				s.log(level, msg)
			}
		})
	}
	_, err := b.Instantiate(ctx)
	return err
}

// mustWrite stores b for the plugin; a full memory traps, as in extism.
func (s *session) mustWrite(b []byte, what string) uint64 {
	off, err := s.k.write(b)
	if err != nil {
		panic(hostError("failed to write " + what + " to memory: " + err.Error()))
	}
	return off
}

func (s *session) configGet(off uint64) uint64 {
	v, ok := s.manifest.Config[string(s.k.block(off))]
	if !ok {
		return 0
	}
	return s.mustWrite([]byte(v), "config value")
}

func (s *session) varGet(off uint64) uint64 {
	name := s.k.block(off)
	s.k.release(off)
	v, ok := s.vars[string(name)]
	if !ok {
		return 0
	}
	return s.mustWrite(v, "var value")
}

// varSet stores a variable within maxVarBytes (0: variables are disabled), in
// extism's words when refused.
func (s *session) varSet(nameOff, valueOff uint64) {
	limit := s.manifest.MaxVarBytes
	if limit == 0 {
		panic(hostError("Vars are disabled by this host"))
	}
	name := string(s.k.block(nameOff))
	s.k.release(nameOff)
	if valueOff == 0 {
		delete(s.vars, name)
		return
	}
	value := s.k.block(valueOff)
	s.k.release(valueOff)
	size := varEntryOverhead + len(name) + len(value)
	for k, v := range s.vars {
		size += len(k) + len(v) + varEntryOverhead
	}
	if int64(size) >= limit {
		panic(hostError("Variable store is full"))
	}
	s.vars[name] = value
}

// hostError is a host function's refusal; wazero turns the panic into the
// call's error.
type hostError string

func (e hostError) Error() string { return string(e) }
