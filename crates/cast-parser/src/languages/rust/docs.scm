; Rust doc comments: `///` and `/** */` document the item below; `//!` at the top of a file
; describes it.

(line_comment outer: (outer_doc_comment_marker)) @doc
(block_comment outer: (outer_doc_comment_marker)) @doc
(source_file (line_comment inner: (inner_doc_comment_marker)) @doc.module)
(source_file (block_comment inner: (inner_doc_comment_marker)) @doc.module)
