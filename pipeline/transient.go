package pipeline

import (
	"errors"
	"strings"
	"syscall"
)

// transientWrites are the causes of a failed store write that pass without
// memd doing anything: space or quota given back, a device that recovers.
var transientWrites = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EIO}

// isTransientWrite reports whether a store write failed for a cause that
// passes. bbolt formats some of these with %s (growing the file), so their
// messages are matched as well as their errnos.
func isTransientWrite(err error) bool {
	if err == nil {
		return false
	}
	for _, errno := range transientWrites {
		if errors.Is(err, errno) {
			return true
		}
	}
	return transientReason(err.Error())
}

// transientReason reports whether an error's text, or a skip's reason
// (older memd skipped notes it could not store on a full disk), names a
// cause that passes.
func transientReason(text string) bool {
	for _, errno := range transientWrites {
		if strings.Contains(text, errno.Error()) {
			return true
		}
	}
	return false
}
