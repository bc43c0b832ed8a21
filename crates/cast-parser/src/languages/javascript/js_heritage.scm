
(class_heritage (identifier) @name) @reference.inherit
(class_heritage
  (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.inherit
