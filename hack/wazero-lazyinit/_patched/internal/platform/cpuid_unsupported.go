//go:build !(amd64 || arm64)

package platform

// kubectl-chart: begin: a function as on amd64 and arm64
func CpuFeatures() CpuFeatureFlags { return 0 }

// kubectl-chart: end
