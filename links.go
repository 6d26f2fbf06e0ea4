package memd

import "path/filepath"

// NoteName is a note as links and link completion name it.
type NoteName struct {
	Path   string `json:"path"`
	Folder string `json:"folder"`
	// Name is the file name without its extension: what a [[link]] to the
	// note writes.
	Name      string   `json:"name"`
	Title     string   `json:"title"`
	Aliases   []string `json:"aliases,omitempty"`
	Backlinks int      `json:"backlinks"` // how many other notes link to it
}

// NamesRequest asks for the notes whose title, aliases or path hold every
// word of Query (all notes when it is empty), most linked first.
type NamesRequest struct {
	Query  string `json:"query,omitempty"`
	Folder string `json:"folder,omitempty"` // absolute registered folder; "" for all
	Limit  int    `json:"limit,omitempty"`  // 0 means DefaultLimit
	Offset int    `json:"offset,omitempty"` // matches to skip first, to page through them
}

// NamesResult answers a NamesRequest; Total counts the matches before
// Offset and Limit.
type NamesResult struct {
	Names []NoteName `json:"names"`
	Total int        `json:"total"`
}

// TagCount is a tag and how many notes carry it.
type TagCount struct {
	Tag   string `json:"tag"`
	Notes int    `json:"notes"`
}

// TagsRequest asks for the tags that start with Prefix (without '#'; case
// is ignored), most used first.
type TagsRequest struct {
	Prefix string `json:"prefix,omitempty"`
	Folder string `json:"folder,omitempty"` // absolute registered folder; "" for all
	Limit  int    `json:"limit,omitempty"`  // 0 means DefaultLimit
}

// TagsResult answers a TagsRequest; Total counts the matches before Limit.
type TagsResult struct {
	Tags  []TagCount `json:"tags"`
	Total int        `json:"total"`
}

// DefaultLimit is how many names or tags an answer holds when the request
// sets no Limit; MaxLimit caps Limit.
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// Backlink is one [[link]] to a note, on one line of another note.
type Backlink struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	Line  int    `json:"line"`  // 1-based
	Text  string `json:"text"`  // the whole line
	Start int    `json:"start"` // byte offset of the link's "[[" in Text
	End   int    `json:"end"`   // byte offset just past its "]]"
}

// BacklinksResult lists the links to Path (to its Heading when one was
// asked for), in path and line order.
type BacklinksResult struct {
	Path      string     `json:"path"`
	Heading   string     `json:"heading,omitempty"`
	Backlinks []Backlink `json:"backlinks"`
}

// ResolveRequest asks which notes links name. Each link is the text between
// a wikilink's brackets as written ("note", "note#heading", "label|note",
// Org's "file:note.org][description"); From is the absolute path of the
// note they are written in, so that relative paths and same-folder notes
// win.
type ResolveRequest struct {
	From  string   `json:"from,omitempty"`
	Links []string `json:"links"`
}

// ResolvedLink is where one link leads. Path is empty when it names no
// note. Line is the 1-based line of the heading it names, else 1.
type ResolvedLink struct {
	Link    string `json:"link"`
	Path    string `json:"path,omitempty"`
	Title   string `json:"title,omitempty"`
	Heading string `json:"heading,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// ResolveResult answers a ResolveRequest, one ResolvedLink per link, in
// order.
type ResolveResult struct {
	Links []ResolvedLink `json:"links"`
}

// MaxResolve caps the links one ResolveRequest may ask about.
const MaxResolve = 10000

// NoteText is lines StartLine..EndLine (1-based, inclusive) of a note's
// file as it is on disk now; Lines is how many lines the file has.
type NoteText struct {
	Path      string `json:"path"`
	Folder    string `json:"folder"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Lines     int    `json:"lines"`
	Text      string `json:"text"`
}

// The routes editors use while a note is written.
const (
	RouteNames     = "/v1/names"      // GET ?query=&folder=&limit=&offset= → NamesResult
	RouteTags      = "/v1/tags"       // GET ?prefix=&folder=&limit= → TagsResult
	RouteResolve   = "/v1/resolve"    // POST ResolveRequest → ResolveResult
	RouteBacklinks = "/v1/backlinks"  // GET ?path=&heading= → BacklinksResult
	RouteNoteText  = "/v1/notes/text" // GET ?path=&start=&end= → NoteText
)

// Validate refuses a Limit out of range and a Folder that is not absolute.
// The error wraps ErrBadRequest.
func (r *NamesRequest) Validate() error {
	if r.Offset < 0 {
		return badRequest(`"offset" is %d; send 0 or more`, r.Offset)
	}
	return checkListing(r.Limit, r.Folder)
}

// Validate refuses a Limit out of range and a Folder that is not absolute.
// The error wraps ErrBadRequest.
func (r *TagsRequest) Validate() error { return checkListing(r.Limit, r.Folder) }

func checkListing(limit int, folder string) error {
	if limit < 0 || limit > MaxLimit {
		return badRequest(`"limit" is %d; ask for 1 to %d, or leave it out for %d`, limit, MaxLimit, DefaultLimit)
	}
	if folder != "" && !filepath.IsAbs(folder) {
		return badRequest(`"folder" is %q, a relative path; send the registered folder's absolute path`, folder)
	}
	return nil
}

// LimitOr is limit, or DefaultLimit when it is 0.
func LimitOr(limit int) int {
	if limit == 0 {
		return DefaultLimit
	}
	return limit
}

// Validate refuses more than MaxResolve links and a From that is not
// absolute. The error wraps ErrBadRequest.
func (r *ResolveRequest) Validate() error {
	if len(r.Links) > MaxResolve {
		return badRequest("%d links; ask about at most %d at once", len(r.Links), MaxResolve)
	}
	if r.From != "" && !filepath.IsAbs(r.From) {
		return badRequest(`"from" is %q, a relative path; send the absolute path of the note the links are in`, r.From)
	}
	return nil
}
