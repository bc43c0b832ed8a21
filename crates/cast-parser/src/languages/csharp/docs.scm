; C# XML doc comments (`///`) document what follows; the comments a file opens with describe
; it (a licence header is skipped).

((comment) @doc (#match? @doc "^///"))
(compilation_unit . (comment)+ @doc.module)
