package helmrecord

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// APIError maps an API server error to the errors Objects implementations return.
func APIError(err error) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%w: %v", ErrObjectNotFound, err)
	case apierrors.IsAlreadyExists(err):
		return fmt.Errorf("%w: %v", ErrObjectExists, err)
	case apierrors.IsConflict(err):
		return fmt.Errorf("%w: %v", ErrConflict, err)
	}
	return err
}
