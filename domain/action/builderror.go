package action

import (
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/manifest"
)

// buildReleaseError says which manifest could not be built, as Helm does,
// when err is a BuildError.
func buildReleaseError(err error) error {
	if _, ok := errors.AsType[*manifest.BuildError](err); ok {
		return fmt.Errorf("unable to build kubernetes objects from release manifest: %w", err)
	}
	return err
}
