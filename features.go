package lectern

// Feature is a site feature whose availability depends on the deployment
// type (the feature table of the service spec).
type Feature string

// The features of the spec's table, in its order.
const (
	FeatureSearch       Feature = "search"       // documentation search
	FeatureAssistant    Feature = "assistant"    // AI assistant
	FeatureAnalytics    Feature = "analytics"    // web analytics
	FeaturePlayground   Feature = "playground"   // API playground ("Try it")
	FeatureStaticExport Feature = "staticExport" // static export bundle
)

// Availability says whether a deployment type offers a feature.
type Availability string

const (
	// Available: always on for the deployment type.
	Available Availability = "available"
	// Configurable: on or off as the deployment's configuration says.
	Configurable Availability = "configurable"
	// Unavailable: never on; asking for it is a configuration error.
	Unavailable Availability = "unavailable"
)

// Features lists every feature of the table, in the spec's order.
var Features = []Feature{FeatureSearch, FeatureAssistant, FeatureAnalytics, FeaturePlayground, FeatureStaticExport}

// featureTable is the spec's table: one row per feature, one column per
// deployment type. It is the only place availability is decided.
var featureTable = map[Feature]map[DeploymentType]Availability{
	FeatureSearch:       {DeploymentCloud: Available, DeploymentClientHosted: Configurable, DeploymentAirGapped: Unavailable},
	FeatureAssistant:    {DeploymentCloud: Available, DeploymentClientHosted: Configurable, DeploymentAirGapped: Unavailable},
	FeatureAnalytics:    {DeploymentCloud: Available, DeploymentClientHosted: Configurable, DeploymentAirGapped: Unavailable},
	FeaturePlayground:   {DeploymentCloud: Available, DeploymentClientHosted: Available, DeploymentAirGapped: Configurable},
	FeatureStaticExport: {DeploymentCloud: Available, DeploymentClientHosted: Available, DeploymentAirGapped: Available},
}

// FeatureAvailability returns how deployment type t offers feature f. It
// returns ok false for a feature or type that is not in the table.
func FeatureAvailability(t DeploymentType, f Feature) (a Availability, ok bool) {
	a, ok = featureTable[f][t]
	return a, ok
}

// FeatureEnabled decides whether feature f is on for deployment type t
// when the configuration asks for it (requested true), leaves it off
// (requested false) or does not mention it (set false). An available
// feature is on whatever the configuration says, except that turning it
// off explicitly is refused; a configurable one follows the
// configuration and is off when not mentioned; asking for an unavailable
// one is an EINVALID error naming the feature and the type.
func FeatureEnabled(t DeploymentType, f Feature, requested, set bool) (bool, error) {
	a, ok := FeatureAvailability(t, f)
	if !ok {
		return false, Errorf(EINVALID, "unknown feature %q or deployment type %q", f, t)
	}
	switch a {
	case Available:
		if set && !requested {
			return false, Errorf(EINVALID, "feature %s is always available for deployment type %s and cannot be turned off", f, t)
		}
		return true, nil
	case Configurable:
		return set && requested, nil
	}
	if set && requested {
		return false, Errorf(EINVALID, "feature %s is unavailable for deployment type %s", f, t)
	}
	return false, nil
}
