; Go doc comments: the comments right above a declaration; above `package`, the package's.

(comment) @doc
(source_file (comment)+ @doc.module . (package_clause))
