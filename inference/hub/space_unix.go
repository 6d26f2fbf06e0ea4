//go:build linux || darwin

package hub

import (
	"fmt"
	"syscall"
)

// checkSpace fails when dir's file system has fewer than need bytes free
// for an unprivileged user. An unknown need or a failing statfs passes:
// a write that runs out of room still says so.
func checkSpace(dir string, need int64) error {
	if need <= 0 {
		return nil
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return nil
	}
	free := st.Bavail * uint64(st.Bsize)
	if free < uint64(need) {
		return fmt.Errorf("%s has %s free and the download needs %s more: free some space or pull to another models folder: %w",
			dir, bytesText(int64(free)), bytesText(need), ErrDiskFull)
	}
	return nil
}
