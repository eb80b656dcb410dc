"""tf.image geometry: flips (fixed and random), rot90, transpose, crops and pads.

Built, as in TensorFlow, from ReverseV2, Transpose, Slice, Pad and friends; 3-D
images [height, width, channels] and 4-D batches [batch, height, width, channels]
are accepted, with unknown dimensions checked at run time by Assert ops.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework import tensor_util
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.image import image_util as _ops
from trainflow._src.ops.control_flow import case, cond
from trainflow._src.ops.random import random_ops

__all__ = ["central_crop", "crop_to_bounding_box", "flip_left_right", "flip_up_down",
           "pad_to_bounding_box", "random_flip_left_right", "random_flip_up_down",
           "resize_image_with_crop_or_pad", "resize_with_crop_or_pad", "rot90", "transpose",
           "transpose_image"]


def _cond(pred, true_fn, false_fn):
    return cond.cond(pred, true_fn, false_fn)


def _fix_flip_shape(image, result):
    """Gives a flipped 3-D image the input's static shape (at least rank 3)."""
    shape = image.get_shape()
    result.set_shape([None, None, None] if shape.ndims is None else shape)
    return result


def _by_rank(image, rank3, rank4):
    """rank3() for a 3-D image, rank4() for a 4-D batch; a cond on the run-time rank when
    the static rank is unknown.

    Raises:
      ValueError: for any other static rank.
    """
    shape = image.get_shape()
    if shape.ndims is None:
        return _cond(_ops.equal(_ops.rank(image), 3), rank3, rank4)
    if shape.ndims == 3:
        return rank3()
    if shape.ndims == 4:
        return rank4()
    raise ValueError(f"'image' (shape {shape}) must have either 3 or 4 dimensions.")


def _flip(image, flip_index, scope_name):
    with name_scope(None, scope_name, [image]):
        image = convert_to_tensor(image, name="image")
        image = _ops.assert_at_least_3d(image)

        def rank3():
            return _fix_flip_shape(image, _ops.reverse(image, [flip_index]))

        def rank4():
            return _ops.reverse(image, [flip_index + 1])

        return _by_rank(image, rank3, rank4)


def flip_left_right(image):
    """Mirrors an image (3-D) or each image of a batch (4-D) horizontally.

    Raises:
      ValueError: if `image` is not 3-D or 4-D.
    """
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """Flips an image (3-D) or each image of a batch (4-D) vertically.

    Raises:
      ValueError: if `image` is not 3-D or 4-D.
    """
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, flip_index, seed, scope_name):
    with name_scope(None, scope_name, [image]):
        image = convert_to_tensor(image, name="image")
        image = _ops.assert_at_least_3d(image)

        def rank3():
            uniform = random_ops.random_uniform([], 0, 1.0, seed=seed)
            mirror = _ops.op("Less", x=uniform, y=0.5)
            result = _cond(mirror, lambda: _ops.reverse(image, [flip_index]), lambda: image)
            return _fix_flip_shape(image, result)

        def rank4():
            batch = _ops.unstack(_ops.shape(image), 4)[0]
            uniform = random_ops.random_uniform(_ops.stack([batch]), 0, 1.0, seed=seed)
            flips = _ops.op("Round", x=_ops.reshape(uniform, _ops.stack([batch, 1, 1, 1])))
            flips = _ops.cast(flips, image.dtype)
            flipped = _ops.reverse(image, [flip_index + 1])
            one_minus = _ops.op("Sub", x=convert_to_tensor(1, dtype=image.dtype), y=flips)
            return _ops.add(_ops.mul(flips, flipped), _ops.mul(one_minus, image))

        return _by_rank(image, rank3, rank4)


def random_flip_left_right(image, seed=None):
    """Mirrors `image` horizontally with probability 1/2 (each image of a 4-D batch
    independently). `seed` is the op-level seed (see `tf.set_random_seed`)."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """Flips `image` vertically with probability 1/2 (each image of a 4-D batch
    independently)."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def _rot90_branches(image, batched):
    h, w = (1, 2) if batched else (0, 1)
    perm = [0, 2, 1, 3] if batched else [1, 0, 2]
    return {
        1: lambda: _ops.transpose(_ops.reverse(image, [w]), perm),
        2: lambda: _ops.reverse(image, [h, w]),
        3: lambda: _ops.reverse(_ops.transpose(image, perm), [w]),
        0: lambda: image,
    }


def _rot90(image, k, batched, static_k=None):
    """Rotates a 3-D or 4-D image; a static k builds just its branch (full static shape),
    a tensor k builds TF's case over the four rotations."""
    branches = _rot90_branches(image, batched)
    shape = image.get_shape()
    if static_k is not None:
        result = branches[static_k]()
        if result is image:
            result = _ops.op("Identity", input=image)
        dims = shape.as_list()
        if static_k % 2:
            hi = 1 if batched else 0
            dims[hi], dims[hi + 1] = dims[hi + 1], dims[hi]
        result.set_shape(dims)
        return result
    pairs = [(_ops.equal(k, i), branches[i]) for i in (1, 2, 3)]
    result = case.case(pairs, default=branches[0], exclusive=True)
    if batched:
        result.set_shape([shape[0], None, None, shape[3]])
    else:
        result.set_shape([None, None, shape[2]])
    return result


def rot90(image, k=1, name=None):
    """Rotates an image (or each image of a batch) counter-clockwise by k * 90 degrees.

    Args:
      image: 3-D [H, W, C] or 4-D [N, H, W, C].
      k: a scalar int32 tensor or Python int (any integer; taken mod 4).
      name: name scope (default "rot90").

    Raises:
      ValueError: if `image` is not 3-D or 4-D or `k` is not a scalar.
    """
    with name_scope(name, "rot90", [image, k]):
        image = convert_to_tensor(image, name="image")
        image = _ops.assert_at_least_3d(image)
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        k.get_shape().assert_has_rank(0)
        static_k = tensor_util.constant_value(k)
        static_k = None if static_k is None else int(static_k) % 4
        if static_k is None:
            k = _ops.op("FloorMod", x=k, y=4)
        return _by_rank(image, lambda: _rot90(image, k, False, static_k),
                        lambda: _rot90(image, k, True, static_k))


def transpose(image, name=None):
    """Swaps the height and width of an image (or of each image of a batch).

    Raises:
      ValueError: if `image` is not 3-D or 4-D.
    """
    with name_scope(name, "transpose", [image]):
        image = convert_to_tensor(image, name="image")
        image = _ops.assert_at_least_3d(image)
        return _by_rank(image, lambda: _ops.transpose(image, [1, 0, 2], name=name),
                        lambda: _ops.transpose(image, [0, 2, 1, 3], name=name))


transpose_image = transpose


def _known(values):
    return [None if _ops.is_tensor(v) else v for v in values]


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Pads `image` with zeros to target_height x target_width, placing it at
    (offset_height, offset_width).

    Raises:
      ValueError: for a bad rank, negative offsets or a target smaller than
        image + offset (statically; unknown sizes are checked at run time).
    """
    with name_scope(None, "pad_to_bounding_box", [image]):
        image = convert_to_tensor(image, name="image")
        image, batched = _ops.as_batch(image)
        batch, height, width, depth = _ops.image_dimensions(image, 4)
        after_w = _ops.sub(_ops.sub(target_width, offset_width), width)
        after_h = _ops.sub(_ops.sub(target_height, offset_height), height)
        checks = _ops.check_at_least_3d(image, require_static=False)
        checks += _ops.check(_ops.greater_equal(offset_height, 0), ValueError,
                             "offset_height must be >= 0")
        checks += _ops.check(_ops.greater_equal(offset_width, 0), ValueError,
                             "offset_width must be >= 0")
        checks += _ops.check(_ops.greater_equal(after_w, 0), ValueError,
                             "width must be <= target - offset")
        checks += _ops.check(_ops.greater_equal(after_h, 0), ValueError,
                             "height must be <= target - offset")
        image = _ops.with_dependencies(checks, image)
        paddings = _ops.reshape(
            _ops.stack([0, 0, offset_height, after_h, offset_width, after_w, 0, 0]),
            convert_to_tensor([4, 2], dtype=dtypes.int32))
        padded = _ops.op("Pad", input=image, paddings=paddings)
        padded.set_shape(_known([batch, target_height, target_width, depth]))
        return _ops.unbatch(padded, batched)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Cuts the target_height x target_width box at (offset_height, offset_width) out of
    an image (or out of each image of a batch).

    Raises:
      ValueError: for a bad rank, negative offsets, non-positive targets or a box
        outside the image (statically; unknown sizes are checked at run time).
    """
    with name_scope(None, "crop_to_bounding_box", [image]):
        image = convert_to_tensor(image, name="image")
        image, batched = _ops.as_batch(image)
        checks = _ops.check_at_least_3d(image, require_static=False)
        batch, height, width, depth = _ops.image_dimensions(image, 4)
        checks += _ops.check(_ops.greater_equal(offset_width, 0), ValueError,
                             "offset_width must be >= 0.")
        checks += _ops.check(_ops.greater_equal(offset_height, 0), ValueError,
                             "offset_height must be >= 0.")
        checks += _ops.check(_ops.greater(target_width, 0), ValueError,
                             "target_width must be > 0.")
        checks += _ops.check(_ops.greater(target_height, 0), ValueError,
                             "target_height must be > 0.")
        checks += _ops.check(_ops.greater_equal(width, _ops.add(target_width, offset_width)),
                             ValueError, "width must be >= target + offset.")
        checks += _ops.check(_ops.greater_equal(height, _ops.add(target_height, offset_height)),
                             ValueError, "height must be >= target + offset.")
        image = _ops.with_dependencies(checks, image)
        dims = _ops.unstack(_ops.shape(image), 4)
        cropped = _ops.slice_(image, _ops.stack([0, offset_height, offset_width, 0]),
                              _ops.stack([dims[0], target_height, target_width, dims[3]]))
        cropped.set_shape(_known([batch, target_height, target_width, depth]))
        return _ops.unbatch(cropped, batched)


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Centrally crops and/or zero-pads an image (or batch) to target_height x target_width.

    Raises:
      ValueError: for a bad rank or non-positive targets.
    """
    with name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image = convert_to_tensor(image, name="image")
        image, batched = _ops.as_batch(image)
        image, checks = _ops.check_targets(image, target_height, target_width)
        if _ops.is_tensor(target_height):
            target_height = _ops.with_dependencies(checks, target_height)
        if _ops.is_tensor(target_width):
            target_width = _ops.with_dependencies(checks, target_width)
        _, height, width, _ = _ops.image_dimensions(image, 4)
        width_diff = _ops.sub(target_width, width)
        height_diff = _ops.sub(target_height, height)
        crop_w = _ops.maximum(_ops.floordiv(_neg(width_diff), 2), 0)
        pad_w = _ops.maximum(_ops.floordiv(width_diff, 2), 0)
        crop_h = _ops.maximum(_ops.floordiv(_neg(height_diff), 2), 0)
        pad_h = _ops.maximum(_ops.floordiv(height_diff, 2), 0)
        cropped = crop_to_bounding_box(image, crop_h, crop_w,
                                       _ops.minimum(target_height, height),
                                       _ops.minimum(target_width, width))
        resized = pad_to_bounding_box(cropped, pad_h, pad_w, target_height, target_width)
        if resized.get_shape().ndims is None:
            raise ValueError("resized contains no shape.")
        _, out_h, out_w, _ = _ops.image_dimensions(resized, 4)
        checks = _ops.check(_ops.equal(out_h, target_height), ValueError,
                            "resized height is not correct.")
        checks += _ops.check(_ops.equal(out_w, target_width), ValueError,
                             "resized width is not correct.")
        resized = _ops.with_dependencies(checks, resized)
        return _ops.unbatch(resized, batched)


resize_with_crop_or_pad = resize_image_with_crop_or_pad


def _neg(x):
    return -x if not _ops.is_tensor(x) else _ops.op("Neg", x=x)


def central_crop(image, central_fraction):
    """Keeps the central `central_fraction` (in (0, 1]) of each side of an image (or of
    each image of a batch).

    Raises:
      ValueError: if the fraction is outside (0, 1] or the image is not 3-D or 4-D.
    """
    with name_scope(None, "central_crop", [image]):
        image = convert_to_tensor(image, name="image")
        fraction = tensor_util.constant_value(central_fraction) \
            if _ops.is_tensor(central_fraction) else central_fraction
        if fraction is not None:
            fraction = float(fraction)
            if fraction <= 0.0 or fraction > 1.0:
                raise ValueError("central_fraction must be within (0, 1]")
            if fraction == 1.0:
                return image
        else:
            ok = _ops.op("LogicalAnd",
                         x=_ops.op("Greater", x=central_fraction, y=0.0),
                         y=_ops.op("LessEqual", x=central_fraction, y=1.0))
            image = _ops.with_dependencies(
                _ops.check(ok, ValueError, "central_fraction must be within (0, 1]"), image)
        _ops.check_at_least_3d(image, require_static=False)
        ndims = image.get_shape().ndims
        if ndims not in (3, 4):
            raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. "
                             f"Had rank = {ndims}.")
        first = 0 if ndims == 3 else 1
        static = image.get_shape().as_list()
        dyn = None
        sizes, starts, dynamic = [], [], []
        for axis in (first, first + 1):
            size = static[axis]
            is_dynamic = size is None or fraction is None
            if size is None:
                dyn = dyn or _ops.unstack(_ops.shape(image), ndims)
                size = dyn[axis]
            if is_dynamic:
                size_d = _ops.cast(size, dtypes.float64)
                frac_d = _ops.cast(central_fraction, dtypes.float64)
                start = _ops.cast(_ops.realdiv(_ops.sub(size_d, _ops.mul(size_d, frac_d)),
                                               convert_to_tensor(2.0, dtype=dtypes.float64)),
                                  dtypes.int32)
            else:
                start = int((float(size) - float(size) * fraction) / 2)
            sizes.append(_ops.sub(size, _ops.mul(start, 2)))
            starts.append(start)
            dynamic.append(is_dynamic)
        if ndims == 3:
            begin = _ops.stack([starts[0], starts[1], 0])
            size = _ops.stack([sizes[0], sizes[1], -1])
        else:
            begin = _ops.stack([0, starts[0], starts[1], 0])
            size = _ops.stack([-1, sizes[0], sizes[1], -1])
        cropped = _ops.slice_(image, begin, size)
        hw = [None if d else s for d, s in zip(dynamic, sizes)]
        cropped.set_shape(hw + [static[-1]] if ndims == 3 else [static[0]] + hw + [static[-1]])
        return cropped
