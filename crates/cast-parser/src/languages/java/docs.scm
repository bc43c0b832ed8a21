; Javadoc comments (`/** … */`) document what follows. A file is described by the Javadoc of
; its top-level type (a Java file holds one), or in `package-info.java` — where the package
; clause is the last thing — by the package's; a banner above an ordinary file's package
; clause is not its description. Line comments between a Javadoc and its type neither belong
; to it nor hide it.

((block_comment) @doc (#match? @doc "^/\\*\\*"))
(program
  (block_comment) @doc.module
  (#match? @doc.module "^/\\*\\*")
  .
  (line_comment)*
  .
  [(class_declaration) (interface_declaration) (enum_declaration) (record_declaration)
   (annotation_type_declaration)] @doc.anchor)
(program
  (block_comment) @doc.module
  (#match? @doc.module "^/\\*\\*")
  .
  (package_declaration) @doc.anchor
  .)
