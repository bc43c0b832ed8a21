
; TypeScript base classes and implemented interfaces.
(extends_clause value: (identifier) @name) @reference.inherit
(extends_clause
  value: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.inherit
(implements_clause (type_identifier) @name) @reference.inherit
(implements_clause (generic_type name: (type_identifier) @name)) @reference.inherit
(extends_type_clause type: (type_identifier) @name) @reference.inherit
(extends_type_clause type: (generic_type name: (type_identifier) @name)) @reference.inherit

; Types named in annotations, signatures and declarations.
(nested_type_identifier module: (_) @receiver name: (type_identifier) @name) @reference.type
(type_identifier) @name @reference.type
