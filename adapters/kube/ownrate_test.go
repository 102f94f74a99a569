package kube

import (
	"testing"

	"k8s.io/client-go/rest"
)

func TestWithOwnRate(t *testing.T) {
	tests := map[string]struct {
		qps       float32
		burst     int
		wantQPS   float32
		wantBurst int
	}{
		"no rate, Helm's default burst":     {burst: 100, wantQPS: 200, wantBurst: 400},
		"no rate, a larger burst limit":     {burst: 1000, wantQPS: 200, wantBurst: 1000},
		"no rate, no burst":                 {wantQPS: 200, wantBurst: 400},
		"the user's rate and burst":         {qps: 20, burst: 30, wantQPS: 20, wantBurst: 30},
		"the user's rate, burst limit zero": {qps: 20, wantQPS: 20, wantBurst: 400},
		"throttling off":                    {qps: -1, burst: 100, wantQPS: -1, wantBurst: 100},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			in := &rest.Config{Host: "https://127.0.0.1:6443", QPS: tc.qps, Burst: tc.burst}
			got := WithOwnRate(in, 200, 400)
			if got.QPS != tc.wantQPS || got.Burst != tc.wantBurst {
				t.Errorf("QPS %v, burst %d; want %v, %d", got.QPS, got.Burst, tc.wantQPS, tc.wantBurst)
			}
			if in.QPS != tc.qps || in.Burst != tc.burst {
				t.Error("the input changed")
			}
		})
	}
}
