; C++ comments, read as C's: the comments right above a definition document it; the comments
; a file opens with describe it (a licence header is skipped).

(comment) @doc
(translation_unit . (comment)+ @doc.module)
