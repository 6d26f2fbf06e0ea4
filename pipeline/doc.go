// Package pipeline indexes folders of notes: it scans and watches them,
// reconciles the disk with the store, queues changed paths as durable jobs,
// parses notes into blocks, cuts them into chunks and writes them to the store.
// Indexing has two phases: a changed note is stored at once, cut by the
// heuristic chunker, so keyword search never waits for a model; with
// models configured, the model stages (chunk with the memory-chunk
// adapter, summarize, embed) then run in the background and replace the
// note's chunks, summary and vectors in one transaction.
//
// Vectors are written through vector.Writer, which also keeps the serving
// index (vector.Serving) in step after each commit and runs the re-embed
// when the embedder changes.
//
// It imports store, vector, inference, internal/pause and the root
// package memd (its index events are memd.Event), never memory, server
// or api.
//
// Decisions a caller may rely on:
//   - Folders may not nest: adding a folder inside or around a registered
//     one fails with ErrNestedFolder, so each note has exactly one folder.
//   - Symlinks are never followed anywhere in a path, neither to folders
//     (so link loops cannot hang a walk) nor to files (a linked note is not
//     indexed; index the folder it lives in instead). Notes are opened with
//     openat from the folder root, one component at a time with O_NOFOLLOW
//     (os.Root would follow links that stay inside), so a folder swapped
//     for a link after its note was queued cannot lead outside.
//   - Nothing is left out without a word: a file whose name is not UTF-8
//     (memd's answers carry paths as UTF-8 text) and a folder that cannot
//     be read are listed as skipped with what to do.
//   - A store write that fails for a cause that passes (a full disk, an I/O
//     error) leaves its jobs queued, and the worker backs off and retries
//     them; no note is skipped for it.
//   - ReadNote reads a note for a client (a passage to show an agent or an
//     editor) through the same openat as the indexer, refusing paths
//     outside the folders, symlinks and files that are not notes.
//   - Dot files and dot folders, node_modules, and the .gitignore-syntax
//     patterns of .memdignore and .gitignore at the folder's root are ignored.
//   - A folder that vanishes keeps its notes (it may be an unmounted drive)
//     and is reported as "folder vanished"; its nearest existing ancestor is
//     watched, and it is watched and reconciled again within moments of
//     coming back.
//   - A reader sees a note as the heuristic cut it or fully enriched,
//     never half; a note waiting for its model stages is marked in the
//     store, so a crash resumes its enrichment at the next start.
//   - A block held verbatim by 10 or more notes of a folder (a template's
//     footer or badges) is shown with its note but never ranked: its text
//     is not counted in its chunks' terms (boilerplate.go). When a block's
//     count crosses 10 either way, the notes holding it are marked and
//     queued for re-indexing in the same transaction.
//   - A rename is recognized by content hash when the new path is processed
//     before the old one's removal (the watcher and reconcile queue present
//     files first, and the watcher holds a path renamed away one more
//     debounce for its new path's event); the note then keeps its chunks
//     and their ids.
//   - A bulk add keeps two cores busy: while one batch commits, the next is
//     read, parsed, chunked and analyzed on Config.Workers goroutines. A
//     batch prepared ahead is dropped, its jobs left queued, when Forget,
//     Reindex, RemoveFolder or an enrichment wrote in between.
package pipeline
