package io.segscope.probes.btf;

/** The BTF type kinds of include/uapi/linux/btf.h, with the size of the data following each btf_type. */
enum BtfKind {
  INT(1, 4, 0),
  PTR(2, 0, 0),
  ARRAY(3, 12, 0),
  STRUCT(4, 0, 12),
  UNION(5, 0, 12),
  ENUM(6, 0, 8),
  FWD(7, 0, 0),
  TYPEDEF(8, 0, 0),
  VOLATILE(9, 0, 0),
  CONST(10, 0, 0),
  RESTRICT(11, 0, 0),
  FUNC(12, 0, 0),
  FUNC_PROTO(13, 0, 8),
  VAR(14, 4, 0),
  DATASEC(15, 0, 12),
  FLOAT(16, 0, 0),
  DECL_TAG(17, 4, 0),
  TYPE_TAG(18, 0, 0),
  ENUM64(19, 0, 12);

  private static final BtfKind[] BY_ID = new BtfKind[20];

  static {
    for (BtfKind k : values()) {
      BY_ID[k.id] = k;
    }
  }

  final int id;
  private final int fixedExtra;
  private final int perVlen;

  BtfKind(int id, int fixedExtra, int perVlen) {
    this.id = id;
    this.fixedExtra = fixedExtra;
    this.perVlen = perVlen;
  }

  /** The kind with this id, or null for 0 and ids past ENUM64. */
  static BtfKind byId(int id) {
    return id > 0 && id < BY_ID.length ? BY_ID[id] : null;
  }

  /** Bytes of kind-specific data after the 12-byte btf_type. */
  long extraBytes(int vlen) {
    return fixedExtra + (long) perVlen * vlen;
  }

  /** Kinds whose size_or_type field is a type id. */
  boolean refersToType() {
    return switch (this) {
      case PTR, TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC, FUNC_PROTO, VAR, DECL_TAG, TYPE_TAG -> true;
      default -> false;
    };
  }

  /** Qualifiers and aliases that are transparent for layout: typedef, const, volatile, restrict, type tag. */
  boolean isModifier() {
    return switch (this) {
      case TYPEDEF, VOLATILE, CONST, RESTRICT, TYPE_TAG -> true;
      default -> false;
    };
  }

  boolean isComposite() {
    return this == STRUCT || this == UNION;
  }
}
