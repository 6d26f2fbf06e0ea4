package hub

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memd-dev/memd/inference/gguf"
)

// fakeHub serves the hub's routes the way huggingface.co does: HEAD and GET
// of /{repo}/resolve/{rev}/{file} (an LFS file answers 302 to a second
// "CDN" server with X-Linked-Etag, X-Linked-Size and X-Repo-Commit; a small
// file is served directly with its git blob sha1 as ETag), X-Error-Code on
// errors, and /api/models/{repo}/revision/{rev}?blobs=true.
type fakeHub struct {
	t   *testing.T
	hub *httptest.Server
	cdn *httptest.Server

	mu    sync.Mutex
	repos map[string]*fakeRepo
	// hubAuth and cdnAuth are the Authorization headers each server saw.
	hubAuth, cdnAuth []string
	// ranges are the Range headers the CDN saw, "" for none.
	ranges []string
	// cutAfter, when > 0, makes the next CDN GET stop after that many
	// bytes, as a dropped connection does; it is reset after one use.
	cutAfter int
	// stallAfter, when > 0, makes the next CDN GET send that many bytes and
	// then nothing until the client gives up; it is reset after one use.
	stallAfter int
	// ignoreRange makes the CDN answer 200 with the whole file.
	ignoreRange bool
	// dropLinked makes HEAD omit X-Linked-Etag, as some mirrors do.
	dropLinked bool
	// corrupt makes the CDN flip a byte of what it sends.
	corrupt bool
	// renamed maps an old repo name to a new one (a 307 within the hub).
	renamed map[string]string
}

type fakeRepo struct {
	commit string
	gated  bool // needs the token "hf_good"
	revs   map[string]bool
	files  map[string]fakeFile
}

type fakeFile struct {
	data []byte
	lfs  bool
}

const goodToken = "hf_good"

func newFakeHub(t *testing.T) *fakeHub {
	h := &fakeHub{t: t, repos: map[string]*fakeRepo{}, renamed: map[string]string{}}
	h.cdn = httptest.NewServer(http.HandlerFunc(h.serveCDN))
	h.hub = httptest.NewServer(http.HandlerFunc(h.serveHub))
	t.Cleanup(h.hub.Close)
	t.Cleanup(h.cdn.Close)
	return h
}

func (h *fakeHub) client() *Client {
	return &Client{Endpoint: h.hub.URL, Attempts: 1, backoff: time.Millisecond}
}

func (h *fakeHub) addRepo(name string, gated bool, files map[string]fakeFile) {
	h.repos[name] = &fakeRepo{
		commit: fmt.Sprintf("%040x", len(h.repos)+1),
		gated:  gated, files: files,
		revs: map[string]bool{"main": true, "refs/pr/1": true},
	}
}

func sha256Of(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func gitBlobSHA1(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

func (h *fakeHub) serveHub(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hubAuth = append(h.hubAuth, r.Header.Get("Authorization"))
	path := r.URL.EscapedPath()
	if rest, ok := strings.CutPrefix(path, "/api/models/"); ok {
		h.serveModelInfo(w, r, rest)
		return
	}
	// /{owner}/{name}/resolve/{rev}/{file...}
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 5)
	if len(parts) < 5 || parts[2] != "resolve" {
		http.NotFound(w, r)
		return
	}
	name := parts[0] + "/" + parts[1]
	if to, ok := h.renamed[name]; ok {
		http.Redirect(w, r, "/"+to+"/resolve/"+parts[3]+"/"+parts[4], http.StatusTemporaryRedirect)
		return
	}
	rev, _ := url.PathUnescape(parts[3])
	file, _ := url.PathUnescape(parts[4])
	repo, ok := h.repos[name]
	authorized := r.Header.Get("Authorization") == "Bearer "+goodToken
	switch {
	case !ok && !authorized:
		hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository not found")
		return
	case !ok:
		hubError(w, http.StatusNotFound, "RepoNotFound", "Repository not found")
		return
	case repo.gated && r.Header.Get("Authorization") == "":
		hubError(w, http.StatusUnauthorized, "GatedRepo", "Access to model "+name+" is restricted.")
		return
	case repo.gated && !authorized:
		hubError(w, http.StatusForbidden, "GatedRepo", "Access to model "+name+" is restricted.")
		return
	case !repo.revs[rev] && rev != repo.commit:
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	f, ok := repo.files[file]
	if !ok {
		hubError(w, http.StatusNotFound, "EntryNotFound", "Entry not found")
		return
	}
	w.Header().Set("X-Repo-Commit", repo.commit)
	if !f.lfs {
		w.Header().Set("ETag", `"`+gitBlobSHA1(f.data)+`"`)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.data))
		return
	}
	if !h.dropLinked {
		w.Header().Set("X-Linked-Etag", `"`+sha256Of(f.data)+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(f.data)))
	}
	w.Header().Set("ETag", `W/"opaque-tag"`)
	http.Redirect(w, r, h.cdn.URL+"/blob/"+sha256Of(f.data)+"?X-Amz-Signature=x", http.StatusFound)
}

func hubError(w http.ResponseWriter, code int, errCode, msg string) {
	w.Header().Set("X-Error-Code", errCode)
	w.Header().Set("X-Error-Message", msg)
	http.Error(w, msg, code)
}

func (h *fakeHub) serveModelInfo(w http.ResponseWriter, r *http.Request, rest string) {
	// {owner}/{name}/revision/{rev}
	parts := strings.SplitN(rest, "/", 4)
	repo, ok := h.repos[parts[0]+"/"+parts[1]]
	if len(parts) != 4 || parts[2] != "revision" || !ok || r.URL.Query().Get("blobs") != "true" {
		http.NotFound(w, r)
		return
	}
	type lfs struct {
		SHA256      string `json:"sha256"`
		Size        int    `json:"size"`
		PointerSize int    `json:"pointerSize"`
	}
	type sibling struct {
		RFilename string `json:"rfilename"`
		BlobID    string `json:"blobId"`
		Size      int    `json:"size"`
		LFS       *lfs   `json:"lfs,omitempty"`
	}
	info := struct {
		ID       string    `json:"id"`
		SHA      string    `json:"sha"`
		Siblings []sibling `json:"siblings"`
	}{ID: parts[0] + "/" + parts[1], SHA: repo.commit}
	for name, f := range repo.files {
		s := sibling{RFilename: name, BlobID: gitBlobSHA1(f.data), Size: len(f.data)}
		if f.lfs {
			s.LFS = &lfs{SHA256: sha256Of(f.data), Size: len(f.data), PointerSize: 134}
		}
		info.Siblings = append(info.Siblings, s)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(info)
}

func (h *fakeHub) serveCDN(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.cdnAuth = append(h.cdnAuth, r.Header.Get("Authorization"))
	h.ranges = append(h.ranges, r.Header.Get("Range"))
	var data []byte
	for _, repo := range h.repos {
		for _, f := range repo.files {
			if f.lfs && "/blob/"+sha256Of(f.data) == r.URL.Path {
				data = f.data
			}
		}
	}
	cut, stall, ignoreRange, corrupt := h.cutAfter, h.stallAfter, h.ignoreRange, h.corrupt
	if r.Method == http.MethodGet {
		h.cutAfter, h.stallAfter = 0, 0
	}
	h.mu.Unlock()
	if data == nil {
		http.NotFound(w, r)
		return
	}
	if corrupt {
		data = bytes.Clone(data)
		data[len(data)-1] ^= 0xff
	}
	if ignoreRange {
		r.Header.Del("Range")
	}
	if cut > 0 && r.Method == http.MethodGet {
		// Announce the whole file, send part of it, and hang up.
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:cut])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	if stall > 0 && r.Method == http.MethodGet {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:stall])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

func (h *fakeHub) seen() (hubAuth, cdnAuth, ranges []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.hubAuth...), append([]string(nil), h.cdnAuth...), append([]string(nil), h.ranges...)
}

// testModel is a valid GGUF file of about 256 kB, so that a download can be
// cut off in the middle of its tensor data.
func testModel(t *testing.T, name string) []byte {
	t.Helper()
	w := gguf.NewWriter()
	w.Set("general.architecture", "llama")
	w.Set("general.name", name)
	w.Set("llama.context_length", uint32(128))
	w.Set("llama.embedding_length", uint32(64))
	w.Set("llama.block_count", uint32(1))
	vals := make([]float32, 64*1024)
	for i := range vals {
		vals[i] = float32(i%97) / 97
	}
	w.AddTensor("token_embd.weight", gguf.TensorF32, []uint64{64, 1024}, gguf.F32(vals))
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
