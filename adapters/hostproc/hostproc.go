// Package hostproc tells about processes of this host, so that a lock whose
// holder ran here and is gone can be taken over at once.
package hostproc
