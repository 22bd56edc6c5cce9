import json as __dsh_json
__dsh_type, __dsh_id, __dsh_sorted, __dsh_isinstance = type, id, sorted, isinstance
__dsh_str, __dsh_int, __dsh_float, __dsh_dict, __dsh_list, __dsh_tuple = str, int, float, dict, list, tuple
__dsh_TypeError, __dsh_ValueError = TypeError, ValueError
def __dsh_json_dumps(obj, *, default=None, **options):
    if default is None:
        return __dsh_json.dumps(obj, **options)
    # What CPython's encoder would write, with each value it cannot write made `default(value)`
    # first, in the order it meets them: a dict's items sorted first with `sort_keys`, each key
    # checked (or skipped, with `skipkeys`) before its value.
    sort_keys = options.get("sort_keys", False)
    skipkeys = options.get("skipkeys", False)
    circular = options.get("check_circular", True)
    path = []
    def enter(value):
        if circular:
            if __dsh_id(value) in path:
                raise __dsh_ValueError("Circular reference detected")
            path.append(__dsh_id(value))
    def leave():
        if circular:
            path.pop()
    def encodable(value):
        if value is None or __dsh_isinstance(value, (__dsh_str, __dsh_int, __dsh_float)):
            return value
        enter(value)
        if __dsh_isinstance(value, (__dsh_list, __dsh_tuple)):
            made = [encodable(item) for item in value]
        elif __dsh_isinstance(value, __dsh_dict):
            made = {}
            for key, item in (__dsh_sorted(value.items()) if sort_keys else value.items()):
                if not (key is None or __dsh_isinstance(key, (__dsh_str, __dsh_int, __dsh_float))):
                    if skipkeys:
                        continue
                    raise __dsh_TypeError(f"keys must be str, int, float, bool or None, not {__dsh_type(key).__name__}")
                made[key] = encodable(item)
        else:
            made = encodable(default(value))
        leave()
        return made
    return __dsh_json.dumps(encodable(obj), **options)
