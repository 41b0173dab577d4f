internal import CYAML

/// The libyaml version this build links against.
public enum YAMLLibrary {
    public static var version: String { String(cString: yaml_get_version_string()) }
}
