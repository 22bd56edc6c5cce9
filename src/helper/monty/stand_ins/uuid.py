__dsh_len, __dsh_str, __dsh_bytes, __dsh_repr, __dsh_hash, __dsh_isinstance, __dsh_int, __dsh_TypeError, __dsh_ValueError = len, str, bytes, repr, hash, isinstance, int, TypeError, ValueError
import os as __dsh_os
import hashlib as __dsh_hashlib
def __dsh_uuid_class():
    class UUID:
        def __init__(self, hex=None, bytes=None, bytes_le=None, fields=None, int=None, version=None):
            given = [value for value in [hex, bytes, bytes_le, fields, int] if value is not None]
            if __dsh_len(given) != 1:
                raise __dsh_TypeError('one of the hex, bytes, bytes_le, fields, or int arguments must be given')
            if bytes_le is not None or fields is not None:
                raise __dsh_TypeError('bytes_le and fields are not available in this runtime')
            if hex is not None:
                hex = hex.replace('urn:', '').replace('uuid:', '').strip('{}').replace('-', '')
                if __dsh_len(hex) != 32:
                    raise __dsh_ValueError('badly formed hexadecimal UUID string')
                int = __dsh_int(hex, 16)
            if bytes is not None:
                if __dsh_len(bytes) != 16:
                    raise __dsh_ValueError('bytes is not a 16-char string')
                int = __dsh_int(bytes.hex(), 16)
            if not 0 <= int < 1 << 128:
                raise __dsh_ValueError('int is out of range (need a 128-bit value)')
            if version is not None:
                if not 1 <= version <= 5:
                    raise __dsh_ValueError('illegal version number')
                int = (int & ~(0xc000 << 48)) | (0x8000 << 48)
                int = (int & ~(0xf000 << 64)) | (version << 76)
            self.int = int
            self.hex = '%032x' % int
            self.bytes = __dsh_bytes.fromhex(self.hex)
            self.urn = 'urn:uuid:' + __dsh_str(self)
            if int & (0x8000 << 48) and not int & (0x4000 << 48):
                self.variant = 'specified in RFC 4122'
                self.version = (int >> 76) & 0xf
            else:
                self.variant = 'reserved for NCS compatibility' if not int & (0x8000 << 48) else ('reserved for Microsoft compatibility' if not int & (0x2000 << 48) else 'reserved for future definition')
                self.version = None
        def __str__(self):
            hex = '%032x' % self.int
            return hex[:8] + '-' + hex[8:12] + '-' + hex[12:16] + '-' + hex[16:20] + '-' + hex[20:]
        def __repr__(self):
            return 'UUID(' + __dsh_repr(__dsh_str(self)) + ')'
        def __eq__(self, other):
            return __dsh_isinstance(other, UUID) and self.int == other.int
        def __hash__(self):
            return __dsh_hash(self.int)
    return UUID
__dsh_uuid = __dsh_module()
__dsh_uuid.UUID = __dsh_uuid_class()
def __dsh_uuid4():
    return __dsh_uuid.UUID(bytes=__dsh_os.urandom(16), version=4)
def __dsh_uuid_named(algorithm, version, namespace, name):
    if __dsh_isinstance(name, __dsh_str):
        name = name.encode('utf-8')
    digest = algorithm(namespace.bytes + name).hexdigest()
    return __dsh_uuid.UUID(hex=digest[:32], version=version)
def __dsh_uuid3(namespace, name):
    return __dsh_uuid_named(__dsh_hashlib.md5, 3, namespace, name)
def __dsh_uuid5(namespace, name):
    return __dsh_uuid_named(__dsh_hashlib.sha1, 5, namespace, name)
__dsh_uuid.uuid4 = __dsh_uuid4
__dsh_uuid.uuid3 = __dsh_uuid3
__dsh_uuid.uuid5 = __dsh_uuid5
__dsh_uuid.NAMESPACE_DNS = __dsh_uuid.UUID('6ba7b810-9dad-11d1-80b4-00c04fd430c8')
__dsh_uuid.NAMESPACE_URL = __dsh_uuid.UUID('6ba7b811-9dad-11d1-80b4-00c04fd430c8')
__dsh_uuid.NAMESPACE_OID = __dsh_uuid.UUID('6ba7b812-9dad-11d1-80b4-00c04fd430c8')
__dsh_uuid.NAMESPACE_X500 = __dsh_uuid.UUID('6ba7b814-9dad-11d1-80b4-00c04fd430c8')
