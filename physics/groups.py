"""The subsystem groups of a car's parameters, one frozen dataclass each, as a preset file groups them.

physics.params.CarParams holds one of each; every field is declared with physics.schema.param
(unit, description, bounds, slider span), so these classes are the schema of presets and panels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .schema import param, quantity

KINEMATIC = "kinematic"
DYNAMIC = "dynamic"
SIMPLE = "simple"
COMBINED = "combined"
SINGLE_TRACK = "single_track"
FOUR_WHEEL = "four_wheel"


@dataclass(frozen=True, kw_only=True)
class ModelParams:
    """Which model runs and how it is set up."""

    kind: str = param(doc="kinematic: 001's bicycle; dynamic: tyre forces with a kinematic low-speed blend",
                      choices=(KINEMATIC, DYNAMIC))
    unit: str = param(doc="unit of length of every length in this preset", choices=("m", "px"))
    gravity: float = param(unit="m/s^2", doc="gravitational acceleration (static axle loads)", lo=0.1, hi=1e4,
                           span=(1.0, 30.0))
    stop_speed: float = param(unit="m/s", doc="003: below this speed with no drive force the car is stopped", lo=0,
                              hi=100, span=(0.0, 0.5))
    reference: str = param("rear_axle", doc="001: the point whose position and speed the kinematic state holds",
                           choices=("rear_axle", "com"))
    blend_low: float = param(2.0, unit="m/s", doc="003: fully kinematic below this speed", lo=0, hi=100,
                             span=(0.0, 10.0))
    blend_high: float = param(3.0, unit="m/s", doc="fully dynamic above this speed", lo=0, lo_open=True, hi=200,
                              span=(0.1, 15.0))
    traction: str = param(SIMPLE, doc="simple: 003's rules (grip limit, 70% while spinning, engine speed imposed by "
                                      "the wheels, kinematic blend); combined: wheels and engine with inertia, "
                                      "combined slip, brakes limited by the road",
                          choices=(SIMPLE, COMBINED))
    slip_speed: float = param(1.0, unit="m/s", doc="combined: slips are taken against at least this speed, so at a "
                                                   "crawl the tyres act as dampers", lo=1e-3, hi=1e3,
                              span=(0.1, 5.0))

    layout: str = param(SINGLE_TRACK, doc="single_track: one tyre per axle (the bicycle); four_wheel: a tyre per "
                                          "corner with lateral load transfer, roll, differentials and per-wheel "
                                          "brakes (needs traction = combined)", choices=(SINGLE_TRACK, FOUR_WHEEL))

    def check(self, length_unit: str = "m") -> str | None:
        if self.layout == FOUR_WHEEL and self.traction != COMBINED:
            return f"layout = {self.layout!r}: the four-wheel car runs on the combined tyres (traction = 'combined')"
        if self.blend_high <= self.blend_low:
            return (f"blend_high = {quantity(self, 'blend_high', length_unit)}: must be above blend_low "
                    f"({quantity(self, 'blend_low', length_unit)})")
        return None


@dataclass(frozen=True, kw_only=True)
class BodyParams:
    """Mass, size and geometry of the body."""

    mass: float = param(unit="kg", doc="total mass", lo=0.01, hi=1e6, span=(0.5, 3000.0))
    wheelbase: float = param(unit="m", doc="distance between the axles", lo=0.01, hi=1000, span=(0.1, 5.0))
    lr: float = param(unit="m", doc="distance from the centre of mass to the rear axle", lo=0, lo_open=True, hi=1000,
                      span=(0.05, 3.0))
    length: float = param(unit="m", doc="body length (drawing)", lo=0.01, hi=2000, span=(0.1, 8.0))
    width: float = param(unit="m", doc="body width (drawing)", lo=0.01, hi=1000, span=(0.1, 3.0))
    track: float = param(unit="m", doc="distance between the left and right wheels (Ackermann; four_wheel: narrow enough "
                                           "that no front wheel turns past 80 deg up to full lock)", lo=0.01, hi=1000,
                         span=(0.1, 3.0))
    front_overhang: float = param(unit="m", doc="body ahead of the front axle (drawing)", lo=0, hi=1000,
                                  span=(0.0, 2.0))
    wheel_radius: float = param(unit="m", doc="003: rolling radius of the driven wheels", lo=0.001, hi=1000,
                                span=(0.02, 0.6))
    cg_height: float = param(0.5, unit="m", doc="003: height of the centre of mass (weight transfer)", lo=0, hi=1000,
                             span=(0.0, 2.0))
    yaw_inertia: float = param(1.0, unit="kg m^2", doc="moment of inertia about the vertical axis", lo=1e-4, hi=1e9,
                               span=(0.01, 5000.0))
    driven_axle: str = param("rear", doc="which axle the drive force and its grip limit belong to (front: a "
                                         "four-wheel car only; all: through a centre differential on one)",
                             choices=("rear", "front", "all"))
    wheel_inertia_front: float = param(2.0, unit="kg m^2", doc="combined: rotational inertia of the front axle's "
                                                               "wheels, tyres, discs and hubs", lo=1e-4, hi=1e4,
                                       span=(0.05, 10.0))
    wheel_inertia_rear: float = param(2.0, unit="kg m^2", doc="combined: rotational inertia of the rear axle's "
                                                              "wheels, tyres, discs, hubs and half-shafts", lo=1e-4,
                                      hi=1e4, span=(0.05, 10.0))

    def check(self, length_unit: str = "m") -> str | None:
        def q(name, value=None):
            return quantity(self, name, length_unit, value)

        if self.lr >= self.wheelbase:
            return f"lr = {q('lr')}: must be less than the wheelbase ({q('wheelbase')})"
        if self.wheelbase + self.front_overhang > self.length:
            return (f"front_overhang = {q('front_overhang')}: with the wheelbase ({q('wheelbase')}) it reaches "
                    f"{q('length', self.wheelbase + self.front_overhang)} from the rear axle, past the length "
                    f"({q('length')})")
        return None


MAX_GEARS = 12
"""Forward gears a car may have (the parameter record holds a fixed-size ratio table, physics.records)."""

WHEEL_ANGLE_MAX = math.radians(80.0)
"""The most any front wheel may turn [rad]. Above about 80 deg a front tyre pulls along the car more than across it
and the integration loses stability (the single-track car's lock; on the four-wheel car its inner wheel, which
Ackermann turns further, made energy past 90 deg); no road car steers that far."""


@dataclass(frozen=True, kw_only=True)
class SteeringParams:
    """Steering lock, rate and the kinematic handbrake's wheelbase."""

    lock: float = param(unit="rad", doc="full-lock angle of the (bicycle) front wheel", lo=0, lo_open=True,
                        hi=WHEEL_ANGLE_MAX, span=(0.05, 1.2), display="deg")
    rate: float = param(unit="rad/s", doc="how fast the wheel angle follows the keys", lo=0.01, hi=100,
                        span=(0.1, 10.0), display="deg/s")
    handbrake_wheelbase: float = param(0.0, unit="m", doc="001: wheelbase while the handbrake is on (0: no swap)", lo=0,
                                       hi=1000, span=(0.0, 5.0))
    ackermann: float = param(1.0, doc="four_wheel: share of the Ackermann geometry the front wheels follow (0: "
                                      "parallel, 1: both point at the turn centre)", lo=-1.0, hi=1.5, span=(0.0, 1.2))


@dataclass(frozen=True, kw_only=True)
class PedalParams:
    """003: pedals are ramps, not switches; these are their rates for the keyboard."""

    throttle_rise: float = param(unit="1/s", doc="throttle pedal rise rate", lo=0.01, hi=1000, span=(0.1, 20.0))
    throttle_fall: float = param(unit="1/s", doc="throttle pedal fall rate", lo=0.01, hi=1000, span=(0.1, 20.0))
    brake_rise: float = param(unit="1/s", doc="brake pedal rise rate", lo=0.01, hi=1000, span=(0.1, 20.0))
    brake_fall: float = param(unit="1/s", doc="brake pedal fall rate", lo=0.01, hi=1000, span=(0.1, 20.0))
    clutch_rise: float = param(20.0, unit="1/s", doc="clutch pedal press rate", lo=0.01, hi=1000, span=(0.1, 50.0))
    clutch_fall: float = param(5.0, unit="1/s", doc="clutch pedal release rate", lo=0.01, hi=1000, span=(0.1, 50.0))


@dataclass(frozen=True, kw_only=True)
class DriveParams:
    """002: a drive force set directly by the throttle (cars without an engine model)."""

    force: float = param(unit="N", doc="002: drive force at full throttle", lo=0, hi=1e8, span=(0.0, 20000.0))
    power: float = param(0.0, unit="W", doc="power limit: force <= power / speed (0: none)", lo=0, hi=1e10,
                         span=(0.0, 300000.0))
    reverse_fraction: float = param(0.5, doc="share of the force available in reverse (brake key at rest)", lo=0, hi=1,
                                    span=(0.0, 1.0))


@dataclass(frozen=True, kw_only=True)
class EngineParams:
    """003: torque curve, internal friction and free revving."""

    idle_rpm: float = param(unit="rpm", doc="idle speed", lo=100, hi=20000, span=(300.0, 2000.0))
    rev_limit: float = param(unit="rpm", doc="rev limiter", lo=500, hi=30000, span=(3000.0, 12000.0))
    # At least 1 rpm: the idle control works over the same band, and one much narrower (0.01 rpm) is a switch that
    # the rounding of the engine's speed flips each frame; the engine hunts around idle (790-820 rpm) and its
    # automatic clutch creeps a car at rest forwards (15 mm in 30 s).
    limiter_band: float = param(100.0, unit="rpm", doc="the limiter cuts the throttle over this band (and the idle "
                                                       "control opens it over the same band)", lo=1, hi=5000,
                                span=(10.0, 1000.0))
    peak_torque: float = param(unit="N m", doc="peak of the torque curve", lo=0, lo_open=True, hi=1e7,
                               span=(10.0, 1000.0))
    peak_rpm: float = param(unit="rpm", doc="speed of the torque peak", lo=100, hi=30000, span=(1000.0, 10000.0))
    torque_floor: float = param(0.1, doc="the curve never falls below this share of the peak", lo=0, hi=1,
                                span=(0.0, 1.0))
    width_below: float = param(unit="rpm", doc="bell width below the peak", lo=10, hi=1e5, span=(100.0, 10000.0))
    width_above: float = param(unit="rpm", doc="bell width above the peak", lo=10, hi=1e5, span=(100.0, 10000.0))
    friction_idle: float = param(unit="N m", doc="internal friction at idle", lo=0, hi=1e7, span=(0.0, 200.0))
    friction_max: float = param(unit="N m", doc="internal friction at the rev limit", lo=0, hi=1e7, span=(0.0, 300.0))
    # Turned slowly, a dead engine's friction rises as its oil films thin, and its compression strokes come
    # back less than they took: starters are sized for about twice the running friction at cranking speed.
    friction_breakaway: float = param(0.0, unit="N m", doc="combined: internal friction at a standstill, falling "
                                                           "linearly to friction_idle at idle (0: no rise)", lo=0,
                                      hi=1e7, span=(0.0, 300.0))
    rise_rate: float = param(unit="rpm/s", doc="free revving at full throttle", lo=0, lo_open=True, hi=1e6,
                             span=(100.0, 20000.0))
    fall_rate: float = param(unit="rpm/s", doc="003: free revving falls this fast off throttle", lo=0, lo_open=True,
                             hi=1e6, span=(100.0, 20000.0))
    inertia: float = param(0.2, unit="kg m^2", doc="combined: rotational inertia of crankshaft and flywheel; engine "
                                                   "speed follows the torque through it", lo=1e-4, hi=100,
                           span=(0.02, 2.0))
    stall_rpm: float = param(500.0, unit="rpm", doc="combined: dragged below this speed the engine stalls (the start "
                                                    "key restarts it)", lo=0, hi=1e5, span=(0.0, 2000.0))
    # An idle-speed controller opens the throttle a little to hold idle against the accessories' load
    # (alternator, air conditioning, power steering: 10-40 N m on a 2-3 l engine): about a tenth of the
    # peak torque, far less than the driver's foot can ask.
    idle_authority: float = param(0.1, doc="combined: most the idle control adds below idle, as a share of the "
                                           "peak torque", lo=0, hi=1, span=(0.0, 0.5))
    starter_torque: float = param(100.0, unit="N m", doc="combined: the starter's torque at the crankshaft with "
                                                         "the engine at rest", lo=0, hi=1e6, span=(0.0, 400.0))
    starter_rpm: float = param(400.0, unit="rpm", doc="combined: cranking speed where the starter's torque has "
                                                      "fallen to zero", lo=1, hi=1e5, span=(50.0, 1500.0))
    firing_rpm: float = param(250.0, unit="rpm", doc="combined: a stalled engine cranked at this speed or more "
                                                     "fires and runs", lo=1, hi=1e5, span=(50.0, 1500.0))

    def check(self, length_unit: str = "m") -> str | None:
        def q(name, value=None):
            return quantity(self, name, length_unit, value)

        if not self.idle_rpm < self.rev_limit:
            return f"idle_rpm = {q('idle_rpm')}: must be below rev_limit ({q('rev_limit')})"
        if self.limiter_band >= self.rev_limit - self.idle_rpm:
            return (f"limiter_band = {q('limiter_band')}: must be narrower than the range from idle to the rev limit "
                    f"({q('limiter_band', self.rev_limit - self.idle_rpm)})")
        if self.stall_rpm >= self.idle_rpm - self.limiter_band:
            return (f"stall_rpm = {q('stall_rpm')}: must be below idle_rpm - limiter_band "
                    f"({q('stall_rpm', self.idle_rpm - self.limiter_band)}), where the idle control gives its full "
                    "authority")
        if self.firing_rpm >= self.starter_rpm:
            return (f"firing_rpm = {q('firing_rpm')}: must be below starter_rpm ({q('starter_rpm')}), or the "
                    f"starter can never crank the engine to fire")
        at_firing = self.friction_at(self.firing_rpm)
        if self.starter_torque * (1.0 - self.firing_rpm / self.starter_rpm) <= at_firing:
            return (f"starter_torque = {q('starter_torque')}: at firing_rpm ({q('firing_rpm')}) it must pass the "
                    f"engine's friction there ({q('starter_torque', at_firing)}), or the starter can never crank the "
                    "engine to fire")
        return None

    def friction_at(self, rpm: float) -> float:
        """Internal friction [N m] at ``rpm`` below idle (physics.engine.friction's low end), for the checks."""
        rise = max(self.friction_breakaway - self.friction_idle, 0.0)
        return self.friction_idle + rise * max(1.0 - rpm / self.idle_rpm, 0.0)


@dataclass(frozen=True, kw_only=True)
class ClutchParams:
    """003: capacity, and the automatic clutch that holds the engine near idle at low speed."""

    capacity: float = param(unit="N m", doc="003: torque the fully engaged clutch can pass", lo=0, lo_open=True, hi=1e7,
                            span=(10.0, 2000.0))
    auto_speed: float = param(unit="m/s", doc="003: below this speed the clutch is automatic", lo=0, hi=1000,
                              span=(0.0, 10.0))
    auto_band: float = param(0.5, unit="m/s", doc="the automatic clutch hands over to the pedal over this band", lo=0,
                             lo_open=True, hi=1000, span=(0.05, 3.0))
    auto_rpm_band: float = param(unit="rpm", doc="003: auto engagement = (rpm - idle) / this", lo=1, hi=30000,
                                 span=(100.0, 3000.0))
    sync_time: float = param(unit="s",
                             doc="at engagement e the engine closes on the drivetrain's speed at -ln(1-e)/this",
                             lo=1e-4, hi=10, span=(0.001, 0.5))
    auto_rate: float = param(4.0, unit="1/s", doc="how fast the automatic clutch can engage (it lets go at once)",
                             lo=0.01, hi=1000, span=(0.1, 50.0))

    def check(self, length_unit: str = "m") -> str | None:
        if self.auto_band > self.auto_speed > 0:
            return (f"auto_band = {quantity(self, 'auto_band', length_unit)}: must not exceed auto_speed "
                    f"({quantity(self, 'auto_speed', length_unit)})")
        return None


@dataclass(frozen=True, kw_only=True)
class GearboxParams:
    """003: ratios and the rule that a shift needs the clutch pressed."""

    ratios: list[float] = param(doc=f"forward gear ratios, 1st first (at most {MAX_GEARS})", lo=0.01, hi=100,
                                span=(0.3, 6.0))
    reverse: float = param(unit="", doc="reverse ratio (negative)", lo=-100, hi=-0.01, span=(-6.0, -0.5))
    final_drive: float = param(doc="final drive ratio", lo=0.1, hi=100, span=(1.0, 8.0))
    shift_clutch: float = param(0.9, doc="clutch pedal position a shift needs", lo=0, hi=1, span=(0.0, 1.0))

    def check(self, length_unit: str = "m") -> str | None:
        # Checked with the group (a live edit, a [[set]], a sweep), not only where the car's record is made: the
        # window took 13 gears and its next step raised.
        if len(self.ratios) > MAX_GEARS:
            return f"ratios: {len(self.ratios)} gears; at most {MAX_GEARS} (the model's table of ratios)"
        return None


@dataclass(frozen=True, kw_only=True)
class TyreParams:
    """003: Pacejka magic-formula lateral force, drive grip limit and sliding."""

    b_front: float = param(unit="1/rad", doc="Pacejka stiffness factor B, front", lo=0.01, hi=100, span=(0.1, 20.0))
    b_rear: float = param(unit="1/rad", doc="Pacejka stiffness factor B, rear", lo=0.01, hi=100, span=(0.1, 20.0))
    # Below 2: past 2, sin(C atan(B alpha)) changes sign at large slip and the force pushes along the slide (a coasting
    # car gained speed, to 40 m/s at C = 3); Pacejka's lateral C is 1.3 to 1.6 (2012, table 4.2), as c_long is held.
    # At least 0.3: with a curve that flat across (0.01 to 0.1) and a stiff one along (b_long 100 to 200) the sedan,
    # braked in a bend, sped up (up to 190 J a frame); 0.2 and up did not, nor 0.01 with the preset's b_long.
    c: float = param(doc="Pacejka shape factor C", lo=0.3, hi=2, hi_open=True, span=(0.5, 1.99))
    e: float = param(doc="Pacejka curvature factor E", lo=-100, hi=1, span=(-2.0, 1.0))
    mu: float = param(doc="peak lateral force per unit of axle load (D = mu * load)", lo=0.01, hi=10, span=(0.1, 2.5))
    traction_mu: float = param(doc="003: the drive force is limited to this times the driven axle's load", lo=0.01,
                               hi=10, span=(0.1, 2.5))
    spin_fraction: float = param(doc="003: share of the grip limit that reaches the road while the wheels spin", lo=0,
                                 hi=1, span=(0.0, 1.0))
    slide_fraction: float = param(doc="grip of the locked rear wheels (handbrake) as a share of the peak", lo=0, hi=1,
                                  span=(0.0, 1.0))
    lateral_share: float = param(1.0, doc="combined: the lateral peak as a share of mu (the friction ellipse's "
                                          "other axis)", lo=0, lo_open=True, hi=1.5, span=(0.5, 1.2))
    # At most 200 (the curve's peak at about 0.5% of slip; road tyres have 10-20): at 1,000 a car braked to a stop in
    # reverse gained 54 J in one frame, the linearised step past what so steep a curve lets it take.
    b_long: float = param(12.0, unit="", doc="combined: Pacejka stiffness factor B of the longitudinal curve "
                                             "(per unit of slip ratio)", lo=0.01, hi=200, span=(1.0, 40.0))
    c_long: float = param(1.65, doc="combined: Pacejka shape factor C of the longitudinal curve", lo=0, lo_open=True,
                          hi=2, hi_open=True, span=(0.5, 1.99))
    e_long: float = param(0.4, doc="combined: Pacejka curvature factor E of the longitudinal curve", lo=-100, hi=1,
                          span=(-2.0, 1.0))
    cornering_load: float = param(0.0, doc="four_wheel: Pacejka's p_Ky2: the cornering stiffness grows with the load "
                                           "as sin(2 atan(Fz / (p_Ky2 Fz_ref))), saturating (0: in proportion); "
                                           "Fz_ref is nominal_load, or the wheel's static load",
                                  lo=0.0, hi=20.0, span=(0.0, 5.0))
    load_sensitivity: float = param(0.0, doc="four_wheel: the tyre's friction falls by this share for each "
                                             "reference load of extra load (mu (1 - s (Fz / Fz_ref - 1)); Fz_ref "
                                             "is nominal_load, or the wheel's static load)", lo=0.0, hi=0.5,
                                    span=(0.0, 0.4))
    # MF-Tyre's FNOMIN (Pacejka 2012, ch. 4.3.2: dfz = (Fz - Fz0) / Fz0): a property of the tyre, so that moving weight
    # between the axles moves the balance through the tyres' load sensitivity. 0 keeps each wheel's own static load as
    # the reference (the tyres then sized for the car: mass and weight split leave the linear balance alone).
    nominal_load: float = param(0.0, unit="N", doc="four_wheel: the tyre's reference load Fz_ref for cornering_load "
                                                   "and load_sensitivity (MF-Tyre's FNOMIN); 0: each wheel's own "
                                                   "static load", lo=0.0, hi=1e6, span=(0.0, 10000.0))


@dataclass(frozen=True, kw_only=True)
class AeroParams:
    """002: aerodynamic drag and rolling resistance."""

    cd: float = param(doc="002: drag coefficient", lo=0, hi=10, span=(0.0, 1.5))
    frontal_area: float = param(unit="m^2", doc="002: frontal area", lo=0, hi=1e4, span=(0.0, 5.0))
    air_density: float = param(unit="kg/m^3", doc="002: density of air (1.29)", lo=0, hi=100, span=(0.0, 2.0))
    rolling: float = param(unit="N s/m", doc="002: rolling resistance C_rr (about 30 * C_drag), a force C_rr v",
                           lo=0, hi=1e7, span=(0.0, 100.0))
    rolling_coefficient: float = param(0.0, doc="a road tyre's rolling resistance coefficient: a force C_rr m g "
                                                "against the motion (0.008-0.015 for car tyres on asphalt)", lo=0,
                                       hi=1, span=(0.0, 0.05))


@dataclass(frozen=True, kw_only=True)
class BrakeParams:
    """Service brake, and the kinematic handbrake's speed cap."""

    force: float = param(unit="N", doc="brake force at full pedal", lo=0, hi=1e8, span=(0.0, 30000.0))
    handbrake_speed: float = param(0.0, unit="m/s", doc="001: speed cap while the handbrake is on (0: no cap)", lo=0,
                                   hi=1e5, span=(0.0, 500.0))
    front_share: float = param(0.65, doc="combined: share of the brake torque on the front axle", lo=0, hi=1,
                               span=(0.0, 1.0))
    abs: int = param(0, doc="combined: 1 = anti-lock brakes keep each braked wheel's slip near the tyre's peak, "
                            "0 = the wheels lock when the brake beats the road", lo=0, hi=1, span=(0, 1))
    # A production ABS cycles the pressure about a slip threshold just below the tyre's peak; modelled
    # as a continuous hold, 0.7 of the peak slip keeps 97% of the peak force on the sedan's curve, so a
    # straight stop takes 1.03 times v^2 / (2 mu g) on any grip (drag and rolling resistance aside).
    abs_slip: float = param(0.7, doc="combined: ABS holds the slip ratio at this share of the tyre's peak slip "
                                     "(straight; lowered by the lateral demand)", lo=0.05, hi=1.5, span=(0.1, 1.2))
    # The rear keeps a reserve of lateral grip: its brake is released before its slip angle reaches the
    # lateral peak, so a car braking in a bend is never the one that loses its tail first.
    abs_rear_margin: float = param(1.3, doc="combined: the rear slip angle counts this many times against its "
                                            "peak in the rear's ABS target (1: no reserve)", lo=1.0, hi=5.0,
                                   span=(1.0, 3.0))
    abs_select_low: int = param(1, doc="combined: 1 = the rear axle is braked select-low, to what its inner "
                                       "(unloaded) wheel can take in a bend", lo=0, hi=1, span=(0, 1))
    # Cornering brake control: braking moves load off the rear, so in a bend the front's brakes are let off
    # too as the rear nears its lateral peak (physics.aids.front_room).
    abs_cornering: int = param(1, doc="combined: 1 = the front's ABS target is lowered as the rear nears its "
                                      "lateral peak, so braking's load transfer never takes the rear past it",
                               lo=0, hi=1, span=(0, 1))
    # Production ABS switches off at a walking pace and lets the wheels lock for the last metre (owners'
    # manuals give 5-10 km/h): a slip target means little when the road's speed is a few slip speeds, and
    # a pressure modulated each frame against the stiff tyre of a crawl would chatter.
    abs_min_speed: float = param(2.0, unit="m/s", doc="combined: below this speed ABS (and stability control's slip "
                                                      "limit) is off and the wheels may lock to stop the car",
                                 lo=0.0, hi=50.0, span=(0.0, 10.0))


@dataclass(frozen=True, kw_only=True)
class AidParams:
    """combined: driver aids beyond ABS (which is brakes.abs): traction control, and stability control on the
    four-wheel car."""

    tcs: int = param(0, doc="1 = traction control holds the driven wheels' slip at tcs_slip by the engine's torque "
                            "and brakes a wheel that spins past tcs_brake_slip", lo=0, hi=1, span=(0, 1))
    # A production traction control holds the driven wheels near the slip of best grip, 10-20% on dry
    # asphalt; just under the sedan's longitudinal peak (14%).
    tcs_slip: float = param(0.1, doc="slip ratio of the driven wheels that traction control holds by the engine's "
                                     "torque", lo=0.01, hi=2.0, span=(0.02, 0.5))
    # The brake and a hard cut of the engine catch a wheel breaking away before the tyre's peak: with the
    # clutch slipping, the clutch passes its capacity whatever the engine's torque.
    tcs_brake_slip: float = param(0.12, doc="slip ratio above which traction control also brakes the spinning "
                                            "driven wheels", lo=0.01, hi=2.0,
                                  span=(0.02, 0.5))
    tcs_gain: float = param(20.0, doc="share of the throttle traction control cuts per unit of slip ratio above "
                                      "tcs_slip at a frame's start (20: all of it 0.05 above)", lo=0.1, hi=1000.0,
                            span=(1.0, 100.0))
    tcs_recovery: float = param(3.0, unit="1/s", doc="how fast traction control gives a cut torque back (3: all of "
                                                     "it in a third of a second)", lo=0.01, hi=1000.0,
                                span=(0.1, 50.0))

    # Stability control (four_wheel): the yaw rate the driver asks for is the linear bicycle's, capped by what
    # the road can give, followed with a lag; a car yawing more (oversteer) gets a front wheel braked against
    # its yaw, one yawing less (understeer) its inner rear wheel (van Zanten, Bosch ESP, SAE 2000-01-1633).
    esc: int = param(0, doc="four_wheel: 1 = stability control brakes single wheels to hold the yaw rate the steering "
                            "asks for", lo=0, hi=1, span=(0, 1))
    esc_threshold: float = param(0.05, unit="rad/s", doc="yaw-rate error stability control lets pass", lo=0.0, hi=10.0,
                                 span=(0.0, 0.5), display="deg/s")
    esc_lag: float = param(0.15, unit="s", doc="time constant of the yaw rate stability control holds the car to "
                                               "(the car's own yaw response)", lo=0.001, hi=10.0, span=(0.01, 1.0))
    esc_gain: float = param(8000.0, unit="N m s/rad", doc="brake torque stability control applies per rad/s of yaw-rate "
                                                          "error beyond the threshold", lo=0.0, hi=1e7,
                            span=(0.0, 40000.0))
    # The braked wheel's slip is what ESP sets (van Zanten, SAE 2000-01-1633), through ABS's valves: well past the
    # tyre's longitudinal peak (about 0.14 on the road cars), where little of its lateral force is left, but short
    # of a lock. 0.3 leaves the road cars' sine with dwell (UN R140) as it was and keeps a wheel from locking in a
    # slide at town speed (the yaw error that brakes 2 kN m).
    esc_slip: float = param(0.3, doc="four_wheel: the most slip ratio stability control's brake takes a wheel to, "
                                     "with ABS on or off (1 = lock)", lo=0.01, hi=1.0, span=(0.05, 1.0))
    # The body's slip angle (FMVSS 126 S4: an ESC system estimates the side slip and modifies the engine torque),
    # beyond the linear bicycle's at the yaw rate held to: beta_max = atan(0.02 mu g) at mu = 1, 0.1937 rad
    # (R. Rajamani, Vehicle Dynamics and Control, 2nd ed., ch. 8, a bound of the controller's target there), on every
    # road (physics.aids.esc_torques says why it does not shrink on ice). The gain is carbench's choice: 1,745 N m at
    # 5 deg beyond the bound, what esc_gain brakes at 0.22 rad/s (12.5 deg/s) beyond the yaw-rate threshold. The
    # engine's cut: a wheel's full brake against oversteer closes the throttle.
    esc_slip_angle: float = param(0.1937, unit="rad", doc="four_wheel: the body slip angle (beyond the linear "
                                                          "bicycle's at the yaw rate held to) past which stability "
                                                          "control brakes against the slide", lo=0.001, hi=1.5,
                                  span=(0.02, 0.6), display="deg")
    esc_slip_gain: float = param(20000.0, unit="N m/rad", doc="four_wheel: brake torque stability control applies per "
                                                              "rad of body slip beyond that angle (0 = the yaw rate "
                                                              "alone)", lo=0.0, hi=1e7, span=(0.0, 100000.0))
    esc_cut: float = param(1.0, doc="four_wheel: share of the engine's torque stability control cuts against "
                                    "oversteer, per share of one wheel's full brake it applies (0 = brakes alone)",
                           lo=0.0, hi=100.0, span=(0.0, 5.0))


@dataclass(frozen=True, kw_only=True)
class SuspensionParams:
    """four_wheel: the springs, anti-roll bars and roll centres that share the lateral load transfer between the
    axles, and the body's roll."""

    spring_front: float = param(unit="N/m", doc="wheel rate of each front spring", lo=1.0, hi=1e8,
                                span=(5000.0, 150000.0))
    spring_rear: float = param(unit="N/m", doc="wheel rate of each rear spring", lo=1.0, hi=1e8,
                               span=(5000.0, 150000.0))
    arb_front: float = param(unit="N m/rad", doc="roll stiffness of the front anti-roll bar", lo=0.0, hi=1e8,
                             span=(0.0, 150000.0))
    arb_rear: float = param(unit="N m/rad", doc="roll stiffness of the rear anti-roll bar", lo=0.0, hi=1e8,
                            span=(0.0, 150000.0))
    roll_centre_front: float = param(unit="m", doc="height of the front roll centre", lo=-10.0, hi=100.0,
                                     span=(-0.1, 0.4))
    roll_centre_rear: float = param(unit="m", doc="height of the rear roll centre", lo=-10.0, hi=100.0,
                                    span=(-0.1, 0.4))
    roll_inertia: float = param(unit="kg m^2", doc="the body's moment of inertia about its roll axis", lo=1e-4,
                                hi=1e9, span=(10.0, 2000.0))
    roll_damping: float = param(unit="N m s/rad", doc="the dampers' resistance to roll, both axles together", lo=0.0,
                                hi=1e9, span=(0.0, 30000.0))
    damping_front_share: float = param(0.5, doc="share of the roll damping at the front axle", lo=0.0, hi=1.0,
                                       span=(0.0, 1.0))


OPEN, LOCKED, LIMITED_SLIP, TORQUE_SENSING = "open", "locked", "limited_slip", "torque_sensing"
DIFFERENTIALS = (OPEN, LOCKED, LIMITED_SLIP, TORQUE_SENSING)


@dataclass(frozen=True, kw_only=True)
class DifferentialParams:
    """four_wheel: the driven axle's differential, which shares the drive between its left and right wheel."""

    kind: str = param(OPEN, doc="open: equal torques, free speeds; locked: one speed; limited_slip: a clutch pack "
                                "(preload + ramp) resists the wheels' speed difference; torque_sensing: the "
                                "slower wheel can take bias_ratio times the faster one's torque (Torsen)",
                      choices=DIFFERENTIALS)
    preload: float = param(0.0, unit="N m", doc="limited_slip: the clutch pack's locking torque with no drive",
                           lo=0.0, hi=1e6, span=(0.0, 500.0))
    ramp: float = param(0.0, doc="limited_slip: locking torque per unit of the torque through the differential "
                                 "(the ramp angle's lock-up)", lo=0.0, hi=1.0, span=(0.0, 1.0))
    bias_ratio: float = param(2.0, doc="torque_sensing: most the slower wheel's torque may be of the faster's", lo=1.0,
                              hi=20.0, span=(1.0, 6.0))
    # All-wheel drive (body.driven_axle = all): a centre differential between the axles, each axle with the
    # differential above. Planetary centre differentials split the torque unequally, most rear-biased
    # (Audi's Torsen C: 40:60, BMW xDrive's nominal 40:60); the kinds are the axle's.
    centre_kind: str = param(OPEN, doc="all-wheel drive: the centre differential between the axles (the kinds as "
                                       "for kind)", choices=DIFFERENTIALS)
    centre_split: float = param(0.4, doc="all-wheel drive: the front axle's share of the torque through an open "
                                         "centre differential", lo=0.0, lo_open=True, hi=1.0, hi_open=True,
                                span=(0.1, 0.9))
    centre_preload: float = param(0.0, unit="N m", doc="all-wheel drive, limited_slip: the centre clutch pack's "
                                                       "locking torque with no drive", lo=0.0, hi=1e6,
                                  span=(0.0, 1000.0))
    centre_ramp: float = param(0.0, doc="all-wheel drive, limited_slip: the centre's locking torque per unit of the "
                                        "torque through it", lo=0.0, hi=1.0, span=(0.0, 1.0))
    centre_bias_ratio: float = param(2.0, doc="all-wheel drive, torque_sensing: most one axle's torque may be of "
                                              "the other's beyond the split", lo=1.0, hi=20.0, span=(1.0, 6.0))
