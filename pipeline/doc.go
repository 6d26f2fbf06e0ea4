// Package pipeline indexes folders of notes: it scans and watches them,
// reconciles the disk with the store, queues changed paths as durable jobs,
// parses notes into blocks, cuts them into chunks and writes them to the store.
// With models configured, each note also goes through the model stages
// (chunk with the memory-chunk adapter, summarize, embed) before the
// group-committed write that stores it with its vectors.
//
// Vectors are written through vector.Writer, which also keeps the serving
// index (vector.Serving) in step after each commit and runs the re-embed
// when the embedder changes.
//
// It imports store, vector, inference and the root package memd (its
// index events are memd.Event), never memory, server or api.
//
// Decisions a caller may rely on:
//   - Folders may not nest: adding a folder inside or around a registered
//     one fails with ErrNestedFolder, so each note has exactly one folder.
//   - Symlinks are never followed, neither to folders (so link loops cannot
//     hang a walk) nor to files (a linked note is not indexed; index the
//     folder it lives in instead).
//   - ReadNote reads a note for a client (a passage to show an agent or an
//     editor) through an os.Root on its registered folder, refusing paths
//     outside the folders, symlinks and files that are not notes.
//   - Dot files and dot folders, node_modules, and the .gitignore-syntax
//     patterns of .memdignore and .gitignore at the folder's root are ignored.
//   - A folder that vanishes keeps its notes (it may be an unmounted drive)
//     and is reported as "folder vanished"; a reconcile re-watches it when it
//     is back.
//   - A rename is recognized by content hash when the new path is processed
//     before the old one's removal (the watcher and reconcile queue present
//     files first); the note then keeps its chunks and their ids.
package pipeline
