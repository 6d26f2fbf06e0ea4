package api

import (
	"context"
	"net/url"
	"strconv"

	"github.com/memd-dev/memd"
)

// Names lists the notes whose title, aliases or path hold every word of
// r.Query, best first: what link completion offers.
func (c *Client) Names(ctx context.Context, r memd.NamesRequest) (memd.NamesResult, error) {
	q := url.Values{}
	setNonEmpty(q, "query", r.Query)
	setNonEmpty(q, "folder", r.Folder)
	setPositive(q, "limit", r.Limit)
	setPositive(q, "offset", r.Offset)
	var res memd.NamesResult
	err := c.do(ctx, "GET", memd.RouteNames+"?"+q.Encode(), nil, &res)
	return res, err
}

// Tags lists the tags that start with r.Prefix, most used first.
func (c *Client) Tags(ctx context.Context, r memd.TagsRequest) (memd.TagsResult, error) {
	q := url.Values{}
	setNonEmpty(q, "prefix", r.Prefix)
	setNonEmpty(q, "folder", r.Folder)
	setPositive(q, "limit", r.Limit)
	var res memd.TagsResult
	err := c.do(ctx, "GET", memd.RouteTags+"?"+q.Encode(), nil, &res)
	return res, err
}

// Resolve says which note each of r.Links (the text between a wikilink's
// brackets) leads to.
func (c *Client) Resolve(ctx context.Context, r memd.ResolveRequest) (memd.ResolveResult, error) {
	var res memd.ResolveResult
	err := c.do(ctx, "POST", memd.RouteResolve, r, &res)
	return res, err
}

// Backlinks lists the links in other notes to the note at the absolute
// path, or into its heading when heading is not "".
func (c *Client) Backlinks(ctx context.Context, path, heading string) (memd.BacklinksResult, error) {
	q := url.Values{"path": {path}}
	setNonEmpty(q, "heading", heading)
	var res memd.BacklinksResult
	err := c.do(ctx, "GET", memd.RouteBacklinks+"?"+q.Encode(), nil, &res)
	return res, err
}

// NoteText reads lines start..end (1-based, inclusive; 0 for the first or
// the last) of the note file at the absolute path, which must lie inside a
// registered folder.
func (c *Client) NoteText(ctx context.Context, path string, start, end int) (memd.NoteText, error) {
	q := url.Values{"path": {path}}
	setPositive(q, "start", start)
	setPositive(q, "end", end)
	var res memd.NoteText
	err := c.do(ctx, "GET", memd.RouteNoteText+"?"+q.Encode(), nil, &res)
	return res, err
}

func setNonEmpty(q url.Values, key, v string) {
	if v != "" {
		q.Set(key, v)
	}
}

func setPositive(q url.Values, key string, v int) {
	if v != 0 {
		q.Set(key, strconv.Itoa(v))
	}
}
