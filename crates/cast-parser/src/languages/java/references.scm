; Java calls, `new`, base classes and implemented interfaces.

(method_invocation !object name: (identifier) @name) @reference.call
(method_invocation object: (_) @receiver name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.call
(object_creation_expression
  type: (scoped_type_identifier (_) @receiver . (type_identifier) @name .)) @reference.call

(superclass (type_identifier) @name) @reference.inherit
(superclass (generic_type (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit
(extends_interfaces (type_list (type_identifier) @name)) @reference.inherit
(extends_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit

; Types named in signatures, fields and declarations.
(scoped_type_identifier (_) @receiver . (type_identifier) @name .) @reference.type
(type_identifier) @name @reference.type
