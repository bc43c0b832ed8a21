; C comments: the comments right above a definition document it (Doxygen's `/** */` and
; `///`, and plain ones alike, as most C code writes them); the comments a file opens with
; describe it (a licence header is skipped).

(comment) @doc
(translation_unit . (comment)+ @doc.module)
