import json as __dsh_json
__dsh_type, __dsh_id, __dsh_sorted, __dsh_ValueError = type, id, sorted, ValueError
def __dsh_json_dumps(obj, *, default=None, **options):
    if default is None:
        return __dsh_json.dumps(obj, **options)
    # What CPython's encoder would write, with each value it cannot write made `default(value)`
    # first, in the order it meets them.
    sort_keys = options.get("sort_keys", False)
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
        kind = __dsh_type(value)
        if value is None or kind is str or kind is int or kind is float or kind is bool:
            return value
        enter(value)
        if kind is dict:
            items = __dsh_sorted(value.items()) if sort_keys else value.items()
            made = {key: encodable(item) for key, item in items}
        elif kind is list or kind is tuple:
            made = [encodable(item) for item in value]
        else:
            made = encodable(default(value))
        leave()
        return made
    return __dsh_json.dumps(encodable(obj), **options)
