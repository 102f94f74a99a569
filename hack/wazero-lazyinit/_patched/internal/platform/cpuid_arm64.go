package platform

import "golang.org/x/sys/cpu"

// CpuFeatures exposes the capabilities for this CPU, queried via the Has method.
// kubectl-chart: begin: a function, not a variable set at package initialisation
func CpuFeatures() CpuFeatureFlags { return loadCpuFeatureFlags() }

// kubectl-chart: end

func loadCpuFeatureFlags() (flags CpuFeatureFlags) {
	if cpu.ARM64.HasATOMICS {
		flags |= CpuFeatureArm64Atomic
	}
	return
}
