package hub

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
)

// sum is the running hash of a download and the value the hub published
// for it.
type sum struct {
	hash.Hash
	kind string // "sha256" or "git blob sha1"
	want string // lower-case hex
}

// newSum is the check the hub's metadata allows for f, or nil when it
// gives none: the sha256 of the content for an LFS file (X-Linked-Etag or
// lfs.sha256), else the git blob sha1 that a small file's ETag is, which
// hashes "blob <size>\x00" before the content.
func newSum(f File) *sum {
	switch {
	case f.SHA256 != "":
		return &sum{Hash: sha256.New(), kind: "sha256", want: f.SHA256}
	case sha1Hex().MatchString(f.ETag) && f.Size >= 0:
		h := sha1.New()
		h.Write([]byte("blob " + strconv.FormatInt(f.Size, 10) + "\x00"))
		return &sum{Hash: h, kind: "git blob sha1", want: f.ETag}
	}
	return nil
}

func (s *sum) got() string   { return hex.EncodeToString(s.Sum(nil)) }
func (s *sum) matches() bool { return s.got() == s.want }
