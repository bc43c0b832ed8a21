; Javadoc comments (`/** … */`) document what follows. A file is described by the Javadoc of
; its top-level type (a Java file holds one), or in `package-info.java` by the package's.

((block_comment) @doc (#match? @doc "^/\\*\\*"))
(program
  (block_comment) @doc.module
  .
  [(class_declaration) (interface_declaration) (enum_declaration) (record_declaration)
   (annotation_type_declaration) (package_declaration)] @doc.anchor
  (#match? @doc.module "^/\\*\\*"))
