package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// File is what the hub says about one file at one revision.
type File struct {
	Repo     string // "owner/name"
	Name     string // path inside the repo, e.g. "gemma-3-1b-it-Q4_K_M.gguf"
	Revision string // as asked: a branch, tag or commit
	// Commit is the commit the revision resolved to (X-Repo-Commit); Pull
	// downloads from it, so a branch that moves mid-download cannot mix
	// two versions of the file. "" when the hub did not say.
	Commit string
	// ETag is X-Linked-Etag (for LFS files, the content's sha256) or else
	// ETag (for small files kept in git, the git blob's sha1), unquoted.
	ETag string
	// SHA256 is the content's sha256 in lower-case hex, from the ETag or
	// from the model-info API; "" when neither gave one.
	SHA256 string
	// Size is the content's length in bytes (X-Linked-Size, else
	// Content-Length); -1 when unknown.
	Size int64
}

// The patterns compile on first use, not at init: every memctl and memd
// start links this package, and few of them pull a model.
var (
	repoPattern = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)
	sha256Hex   = lazyRegexp(`^[0-9a-f]{64}$`)
	sha1Hex     = lazyRegexp(`^[0-9a-f]{40}$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

func checkNames(repo, file string) error {
	if !repoPattern().MatchString(repo) || strings.Contains(repo, "..") {
		return fmt.Errorf("repo %q is not a hub repo name: write it as owner/name, e.g. google/gemma-3-1b-it-qat-q4_0-gguf", repo)
	}
	if file == "" || strings.HasPrefix(file, "/") || strings.Contains(file, "\\") || strings.ContainsRune(file, 0) {
		return fmt.Errorf("file %q is not a path inside repo %s: name it as the repo lists it, e.g. model-Q4_K_M.gguf", file, repo)
	}
	for _, seg := range strings.Split(file, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("file %q is not a path inside repo %s: name it as the repo lists it, e.g. model-Q4_K_M.gguf", file, repo)
		}
	}
	return nil
}

// Stat asks the hub about one file without downloading it: a HEAD of the
// resolve route, whose answer (often a redirect to a CDN, not followed)
// carries X-Repo-Commit, X-Linked-Etag and X-Linked-Size. When the ETag is
// not a sha256 (a mirror that drops the X-Linked headers, say), Stat asks
// the model-info API (/api/models/{repo}/revision/{commit}?blobs=true) for
// the file's lfs.sha256. rev "" means "main".
func (c *Client) Stat(ctx context.Context, repo, file, rev string) (File, error) {
	if err := checkNames(repo, file); err != nil {
		return File{}, err
	}
	if rev == "" {
		rev = "main"
	}
	u, err := c.resolveURL(repo, rev, file)
	if err != nil {
		return File{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, u.String(), nil)
	if err != nil {
		return File{}, fmt.Errorf("ask the hub about %s in %s: %w", file, repo, err)
	}
	// A redirect within the hub (a renamed repo) is followed; one to
	// another host is the download location, and its metadata is here.
	resp, err := c.do(req, func(to *url.URL) bool { return to.Host == u.Host })
	if err != nil {
		return File{}, fmt.Errorf("ask the hub about %s in %s: %w: check the network, or HF_ENDPOINT", file, repo, err)
	}
	drain(resp)
	if resp.StatusCode >= 400 {
		return File{}, c.statusError(resp, repo, file, rev)
	}
	f := File{Repo: repo, Name: file, Revision: rev, Commit: resp.Header.Get("X-Repo-Commit"), Size: -1}
	f.ETag = unquoteETag(resp.Header.Get("X-Linked-Etag"))
	if f.ETag == "" {
		f.ETag = unquoteETag(resp.Header.Get("ETag"))
	}
	if n, err := strconv.ParseInt(resp.Header.Get("X-Linked-Size"), 10, 64); err == nil && n >= 0 {
		f.Size = n
	} else if !isRedirect(resp.StatusCode) && resp.ContentLength >= 0 {
		f.Size = resp.ContentLength
	}
	if sha256Hex().MatchString(f.ETag) {
		f.SHA256 = f.ETag
	} else if !sha1Hex().MatchString(f.ETag) {
		if sum, size, err := c.lfsInfo(ctx, f); err == nil && sum != "" {
			f.SHA256 = sum
			if f.Size < 0 {
				f.Size = size
			}
		}
	}
	return f, nil
}

// unquoteETag strips the quotes and a weak validator's W/ prefix; the hub
// sends hashes in lower case, but a mirror might not.
func unquoteETag(v string) string {
	v = strings.TrimSpace(v)
	v = strings.TrimPrefix(v, "W/")
	return strings.ToLower(strings.Trim(v, `"`))
}

// modelInfo is the part of /api/models/{repo}/revision/{rev}?blobs=true
// that Stat reads.
type modelInfo struct {
	SHA      string `json:"sha"`
	Siblings []struct {
		RFilename string `json:"rfilename"`
		Size      *int64 `json:"size"`
		LFS       *struct {
			SHA256 string `json:"sha256"`
			Size   int64  `json:"size"`
		} `json:"lfs"`
	} `json:"siblings"`
}

// lfsInfo is the file's sha256 and size from the model-info API; the sum is
// "" when the file is not in LFS. It is a fallback, so its
// failures are not errors: the size check and the GGUF check still guard
// the download.
func (c *Client) lfsInfo(ctx context.Context, f File) (string, int64, error) {
	base, err := c.endpoint()
	if err != nil {
		return "", 0, err
	}
	rev := f.Commit
	if rev == "" {
		rev = f.Revision
	}
	u, err := base.Parse(base.Path + "/api/models/" + f.Repo + "/revision/" + url.PathEscape(rev) + "?blobs=true")
	if err != nil {
		return "", 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.do(req, func(to *url.URL) bool { return to.Host == u.Host })
	if err != nil {
		return "", 0, err
	}
	defer drain(resp)
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("model info: %s", resp.Status)
	}
	var info modelInfo
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 32<<20)).Decode(&info); err != nil {
		return "", 0, fmt.Errorf("model info: %w", err)
	}
	for _, s := range info.Siblings {
		if s.RFilename == f.Name && s.LFS != nil {
			if sum := strings.ToLower(s.LFS.SHA256); sha256Hex().MatchString(sum) {
				return sum, s.LFS.Size, nil
			}
		}
	}
	return "", 0, nil
}
