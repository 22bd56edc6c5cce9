__dsh_len, __dsh_bin, __dsh_int, __dsh_ValueError, __dsh_IndexError = len, bin, int, ValueError, IndexError
import os as __dsh_os
import base64 as __dsh_base64
__dsh_secrets = __dsh_module()
def __dsh_token_bytes(nbytes=None):
    return __dsh_os.urandom(32 if nbytes is None else nbytes)
def __dsh_token_hex(nbytes=None):
    return __dsh_token_bytes(nbytes).hex()
def __dsh_token_urlsafe(nbytes=None):
    return __dsh_base64.urlsafe_b64encode(__dsh_token_bytes(nbytes)).rstrip(b'=').decode('ascii')
def __dsh_randbelow(exclusive_upper_bound):
    if exclusive_upper_bound <= 0:
        raise __dsh_ValueError('Upper bound must be positive.')
    bits = __dsh_len(__dsh_bin(exclusive_upper_bound - 1)) - 2 if exclusive_upper_bound > 1 else 0
    while True:
        value = __dsh_int(__dsh_os.urandom((bits + 7) // 8 or 1).hex(), 16) >> ((((bits + 7) // 8 or 1) * 8) - bits)
        if value < exclusive_upper_bound:
            return value
def __dsh_choice(sequence):
    if not sequence:
        raise __dsh_IndexError('Cannot choose from an empty sequence')
    return sequence[__dsh_randbelow(__dsh_len(sequence))]
__dsh_secrets.token_bytes = __dsh_token_bytes
__dsh_secrets.token_hex = __dsh_token_hex
__dsh_secrets.token_urlsafe = __dsh_token_urlsafe
__dsh_secrets.randbelow = __dsh_randbelow
__dsh_secrets.choice = __dsh_choice
