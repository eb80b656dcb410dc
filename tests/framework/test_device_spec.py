"""DeviceSpec: parsing, canonical strings, merging (values recorded from TF 2.21)."""
import pytest

from trainflow._src.framework.device_spec import DeviceSpec, canonical_name, merge_device


def test_fields_and_to_string():
    d = DeviceSpec.from_string("/job:ps/replica:1/task:2/device:GPU:3")
    assert (d.job, d.replica, d.task, d.device_type, d.device_index) == ("ps", 1, 2, "GPU", 3)
    assert d.to_string() == "/job:ps/replica:1/task:2/device:GPU:3"
    assert DeviceSpec(job="w", device_type="cpu").to_string() == "/job:w/device:CPU:*"
    assert DeviceSpec().to_string() == ""
    assert DeviceSpec.from_string("/device:CPU:*").to_string() == "/device:CPU:*"
    assert DeviceSpec.from_string("cpu").to_string() == "/device:CPU:*"
    assert repr(DeviceSpec.from_string("/job:a")) == "DeviceSpec('/job:a')"


def test_merging():
    d = DeviceSpec.from_string("/job:ps")
    d.merge_from(DeviceSpec.from_string("/task:1/cpu:0"))
    assert d.to_string() == "/job:ps/task:1/device:CPU:0"
    merged = DeviceSpec.from_string("/job:a").make_merged_spec(
        DeviceSpec.from_string("/job:b/task:1"))
    assert merged.to_string() == "/job:b/task:1"
    assert DeviceSpec.from_string("/job:a").replace(task=3).to_string() == "/job:a/task:3"
    d = DeviceSpec.from_string("/job:a")
    assert d.parse_from_string("/task:3") is d and d.to_string() == "/task:3"


def test_equality_and_hash():
    a = DeviceSpec.from_string("/job:a/task:1")
    b = DeviceSpec.from_string("/task:1/job:a")
    assert a == b and hash(a) == hash(b) and a != DeviceSpec.from_string("/job:a")


def test_canonical_name_and_merge_device():
    assert canonical_name("/gpu:0") == "/device:GPU:0"
    assert canonical_name(None) == "" and canonical_name("") == ""
    assert canonical_name(DeviceSpec(task=1)) == "/task:1"

    class Op:
        device = "/job:ps/device:CPU:0"
    assert merge_device("/task:2")(Op()) == "/job:ps/task:2/device:CPU:0"


@pytest.mark.parametrize("spec, message", [
    ("/foo:1", "Unknown attribute 'foo' is encountered while parsing the device spec: "
               "'/foo:1'."),
    ("/JOB:ps", "Unknown attribute 'JOB'"),
    ("/device:GPU", "Unknown attribute 'device'"),
    ("/gpu:0/cpu:0", "Multiple device types are not allowed while parsing the device spec: "
                     "/gpu:0/cpu:0."),
])
def test_bad_strings(spec, message):
    with pytest.raises(ValueError) as info:
        DeviceSpec.from_string(spec)
    assert str(info.value) == message or str(info.value).startswith(message)
