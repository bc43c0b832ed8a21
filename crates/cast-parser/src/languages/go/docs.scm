; Go doc comments: the comments right above a declaration; right above `package` (no blank
; line between), the package's.

(comment) @doc
(source_file (comment)+ @doc.module . (package_clause) @doc.anchor)
