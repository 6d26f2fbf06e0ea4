package runtime

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memd-dev/memd/inference/llama"
)

// metadataFile sits beside the libraries in every @node-llama-cpp package.
const metadataFile = "_nlcBuildMetadata.json"

// maxUnpacked bounds what one package may unpack to (the CUDA build is
// about 500 MB unpacked).
const maxUnpacked = 4 << 30

// InstallOptions are Options plus how to run npm.
type InstallOptions struct {
	Options
	NPM    string    // the npm client; "" = "npm" from PATH
	Output io.Writer // npm's output; nil = discarded
}

// Install fetches the package the options select with `npm pack`, unpacks
// its libraries into the cache (replacing an earlier install of the same
// package only once the new one is complete and verified) and returns the
// folder to load. It checks that the package's llama.cpp release, from
// _nlcBuildMetadata.json, and its libllama file name are accepted ones,
// and writes to o.Output which build it chose and why (see Choose).
func Install(ctx context.Context, o InstallOptions) (string, error) {
	choice, err := Choose(o.host(), o.Backend)
	if err != nil {
		return "", err
	}
	pkg := choice.Package
	if choice.Why != "" && o.Output != nil {
		fmt.Fprintf(o.Output, "%s: %s\n", pkg.Spec(), choice.Why)
	}
	final, err := o.PackageDir(pkg)
	if err != nil {
		return "", err
	}
	root := filepath.Dir(final)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("install %s: %w", pkg.Spec(), err)
	}
	work, err := os.MkdirTemp(root, ".install-")
	if err != nil {
		return "", fmt.Errorf("install %s: %w", pkg.Spec(), err)
	}
	defer os.RemoveAll(work)

	tarball, err := npmPack(ctx, o, pkg, filepath.Join(work, "pack"))
	if err != nil {
		return "", err
	}
	staging := filepath.Join(work, "lib")
	if err := extractFile(tarball, pkg.Platform, staging); err != nil {
		return "", fmt.Errorf("install %s: %w", pkg.Spec(), err)
	}
	if err := verify(staging); err != nil {
		return "", fmt.Errorf("install %s: %w", pkg.Spec(), err)
	}
	old := filepath.Join(work, "old")
	if err := os.Rename(final, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("install %s: replace %s: %w", pkg.Spec(), final, err)
	}
	if err := os.Rename(staging, final); err != nil {
		return "", fmt.Errorf("install %s: %w", pkg.Spec(), err)
	}
	return final, nil
}

func npmPack(ctx context.Context, o InstallOptions, pkg Package, dest string) (string, error) {
	npm := o.NPM
	if npm == "" {
		npm = "npm"
	}
	if _, err := exec.LookPath(npm); err != nil {
		return "", fmt.Errorf("%w: %s not found (%v): install Node.js's npm, or download %s yourself and set %s to its bins/%s folder",
			ErrNPM, npm, err, pkg.Spec(), EnvLibDir, pkg.Platform)
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return "", err
	}
	var out bytes.Buffer
	// npm retries an unreachable registry for about a minute by default,
	// silently; one try with a bounded wait says sooner what failed.
	cmd := exec.CommandContext(ctx, npm, "pack", pkg.Spec(), "--pack-destination", dest,
		"--fetch-retries=0", fmt.Sprintf("--fetch-timeout=%d", npmFetchTimeout.Milliseconds()))
	cmd.Dir = dest
	cmd.Stdout, cmd.Stderr = &out, &out
	if o.Output != nil {
		fmt.Fprintf(o.Output, "fetching %s with npm pack (this needs the network)\n", pkg.Spec())
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, o.Output), io.MultiWriter(&out, o.Output)
	}
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: npm pack %s: %v: %s\n%s", ErrNPM, pkg.Spec(), err, lastLines(out.String(), 5), alternatives(out.String(), pkg))
	}
	tgz, _ := filepath.Glob(filepath.Join(dest, "*.tgz"))
	if len(tgz) != 1 {
		return "", fmt.Errorf("%w: npm pack %s left %d tarballs in %s", ErrNPM, pkg.Spec(), len(tgz), dest)
	}
	return tgz[0], nil
}

// npmFetchTimeout bounds each request npm makes to its registry.
const npmFetchTimeout = 20 * time.Second

// alternatives says what failed when npm could not reach its registry, and
// the ways to a runtime that need no registry.
func alternatives(npmOutput string, pkg Package) string {
	why := "npm pack failed"
	for _, code := range []string{"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "ECONNRESET", "ENETUNREACH"} {
		if strings.Contains(npmOutput, code) {
			why = "npm could not reach its registry (" + code + "): this machine looks offline, or the registry npm is set to is unreachable"
			break
		}
	}
	return fmt.Sprintf("%s. Without the registry: set %s to a folder holding llama.cpp's libraries (the bins/%s folder of %s, unpacked on a machine with network), "+
		"or build them with scripts/build-llama.sh from memd's source tree (its header says how to build without network)", why, EnvLibDir, pkg.Platform, pkg.Spec())
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func extractFile(tarball, platform, dest string) error {
	f, err := os.Open(tarball)
	if err != nil {
		return err
	}
	defer f.Close()
	return Extract(f, platform, dest)
}

// Extract unpacks the files under package/bins/<platform>/ of an npm
// tarball (gzip-compressed tar) into dest, keeping their layout below that
// folder. Entries that would land outside dest, links pointing outside it,
// device files, and archives over 4 GiB are ErrBadPackage; other entries
// are skipped. It fails if the platform folder is absent.
func Extract(r io.Reader, platform, dest string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("%w: not a gzip tarball: %v", ErrBadPackage, err)
	}
	defer gz.Close()
	prefix := "package/bins/" + platform + "/"
	tr := tar.NewReader(gz)
	var total int64
	found := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: read tarball: %v", ErrBadPackage, err)
		}
		name := strings.TrimPrefix(h.Name, "./")
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		rel := path.Clean(strings.TrimPrefix(name, prefix))
		if rel == "." {
			continue
		}
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("%w: entry %q leaves the package folder", ErrBadPackage, h.Name)
		}
		target := filepath.Join(dest, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if total > maxUnpacked {
				return fmt.Errorf("%w: unpacks to more than %d bytes", ErrBadPackage, int64(maxUnpacked))
			}
			if err := writeFile(target, tr, h); err != nil {
				return err
			}
			found = true
		case tar.TypeSymlink:
			if !filepath.IsLocal(path.Join(path.Dir(rel), h.Linkname)) || path.IsAbs(h.Linkname) {
				return fmt.Errorf("%w: link %q points outside the package folder", ErrBadPackage, h.Name)
			}
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: entry %q has unsupported type %q", ErrBadPackage, h.Name, h.Typeflag)
		}
	}
	if !found {
		return fmt.Errorf("%w: no files under %s", ErrBadPackage, prefix)
	}
	return nil
}

func writeFile(target string, r io.Reader, h *tar.Header) error {
	mode := os.FileMode(0o644)
	if h.Mode&0o111 != 0 {
		mode = 0o755
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, r, h.Size); err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %v", ErrBadPackage, h.Name, err)
	}
	return f.Close()
}

// BuildInfo is what a package's _nlcBuildMetadata.json says about its build.
type BuildInfo struct {
	Release string // llama.cpp release, e.g. "v0.5.0"
	Repo    string
	GPU     string // "false", "cuda", "vulkan", "metal"
}

// ReadBuildInfo reads dir/_nlcBuildMetadata.json.
func ReadBuildInfo(dir string) (BuildInfo, error) {
	b, err := os.ReadFile(filepath.Join(dir, metadataFile))
	if err != nil {
		return BuildInfo{}, fmt.Errorf("%w: %v", ErrBadPackage, err)
	}
	var m struct {
		BuildOptions struct {
			GPU      any `json:"gpu"`
			LlamaCpp struct {
				Repo    string `json:"repo"`
				Release string `json:"release"`
			} `json:"llamaCpp"`
		} `json:"buildOptions"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return BuildInfo{}, fmt.Errorf("%w: %s: %v", ErrBadPackage, metadataFile, err)
	}
	return BuildInfo{Release: m.BuildOptions.LlamaCpp.Release, Repo: m.BuildOptions.LlamaCpp.Repo, GPU: fmt.Sprint(m.BuildOptions.GPU)}, nil
}

func verify(dir string) error {
	info, err := ReadBuildInfo(dir)
	if err != nil {
		return err
	}
	if !slices.Contains(llama.AcceptedVersions, info.Release) {
		return fmt.Errorf("%w: the package is llama.cpp %q; memd accepts %s", ErrBadPackage, info.Release, strings.Join(llama.AcceptedVersions, " or "))
	}
	lf, err := llama.FindLibrary(dir)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadPackage, err)
	}
	if lf.Version != info.Release {
		return fmt.Errorf("%w: %s does not match the package's release %s", ErrBadPackage, lf.Name, info.Release)
	}
	return nil
}
