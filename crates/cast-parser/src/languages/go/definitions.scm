; Go definitions, after tree-sitter-go's tags.scm. A method is qualified by its receiver's type
; (`Server.Start`); interface methods sit in their interface.

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name) @definition.method
(method_declaration name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type (field_declaration_list) @body)) @definition.struct
(type_spec
  name: (type_identifier) @name
  type: (interface_type "{" @body)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

(method_elem name: (field_identifier) @name) @definition.method

; Package-level constants and variables: a package's API (locals are left out).
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))
